# Writes OUT with the git commit of SRC (with "-dirty" for uncommitted
# changes), rewriting it only when it changes so nothing rebuilds needlessly.
# Run at every build, so result records never carry a stale commit.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SRC}" RESULT_VARIABLE rc
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY "${SRC}"
                  OUTPUT_VARIABLE changes ERROR_QUIET)
  if(changes)
    string(APPEND commit "-dirty")
  endif()
endif()
set(content "#pragma once\n// Generated at build time by cmake/git_commit.cmake.\nnamespace haloex::build {\ninline constexpr const char* git_commit = \"${commit}\";\n}  // namespace haloex::build\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
