#include "haloex/io/xdmf.hpp"

#include <sstream>

#include "haloex/core/error.hpp"

namespace haloex {

namespace {

std::string dims(const std::array<long, 3>& e) {
  return std::to_string(e[0]) + " " + std::to_string(e[1]) + " " + std::to_string(e[2]);
}

std::string number_type(IoType t) {
  return t == IoType::u8
             ? R"(NumberType="UChar" Precision="1")"
             : std::string(R"(NumberType="Float" Precision=")") + (t == IoType::f64 ? "8" : "4") + "\"";
}

}  // namespace

std::string xdmf_text(const std::vector<IoMetadata>& q) {
  if (q.empty()) throw Error("an XDMF file needs at least one quantity");
  for (const IoMetadata& m : q)
    if (m.format != IoFormat::hdf5 || m.size != q[0].size || m.files.size() != q[0].files.size())
      throw Error("XDMF quantities must be HDF5 outputs of one lattice and I/O grid");
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n "
       "<Domain>\n";
  const bool blocks = q[0].files.size() > 1;
  if (blocks) x << "  <Grid Name=\"lattice\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
  for (size_t f = 0; f < q[0].files.size(); ++f) {
    const FileEntry& fe = q[0].files[f];
    // Dimensions list the slowest index first (haloex's x), as HDF5 does.
    x << "  <Grid Name=\"block" << f << "\" GridType=\"Uniform\">\n"
      << "   <Time Value=\"" << q[0].step << "\"/>\n"
      << "   <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << dims(fe.extent) << "\"/>\n"
      << "   <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
      << dims(fe.offset) << "</DataItem>\n"
      << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">1 1 "
         "1</DataItem>\n"
      << "   </Geometry>\n";
    for (const IoMetadata& m : q) {
      const FileEntry& e = m.files[f];
      const int nc = m.element.ncomp;
      const std::string item = std::string(" ")
                                   .append(number_type(m.element.type))
                                   .append(" Format=\"HDF\">")
                                   .append(e.path)
                                   .append(":")
                                   .append(m.dataset);
      if (nc == 1 || nc == 3) {
        x << "   <Attribute Name=\"" << m.name << "\" AttributeType=\"" << (nc == 1 ? "Scalar" : "Vector")
          << "\" Center=\"Node\">\n    <DataItem Dimensions=\"" << dims(e.extent) << " " << nc << "\"" << item
          << "</DataItem>\n   </Attribute>\n";
        continue;
      }
      // Other component counts: each component its own scalar, cut out of the
      // dataset by a hyperslab. (Dimensions always name the whole dataset.)
      for (int c = 0; c < nc; ++c) {
        const std::string cname =
            c < static_cast<int>(m.element.components.size()) ? m.element.components[c] : std::to_string(c);
        x << "   <Attribute Name=\"" << m.name << "_" << cname
          << "\" AttributeType=\"Scalar\" Center=\"Node\">\n"
          << "    <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << dims(e.extent) << " 1\">\n"
          << "     <DataItem Dimensions=\"3 4\" Format=\"XML\">0 0 0 " << c << " 1 1 1 1 " << dims(e.extent)
          << " 1</DataItem>\n     <DataItem Dimensions=\"" << dims(e.extent) << " " << nc << "\"" << item
          << "</DataItem>\n    </DataItem>\n   </Attribute>\n";
      }
    }
    x << "  </Grid>\n";
  }
  if (blocks) x << "  </Grid>\n";
  x << " </Domain>\n</Xdmf>\n";
  return x.str();
}

}  // namespace haloex
