#include "haloex/io/xdmf.hpp"

#include <sstream>

#include "haloex/core/error.hpp"

namespace haloex {

namespace {

// XDMF, like HDF5, lists dimensions slowest first: z, y, x.
std::string zyx(const std::array<double, 3>& v) {
  std::ostringstream s;
  s << v[2] << " " << v[1] << " " << v[0];
  return s.str();
}
// Each site is a cell of the mesh, centred on the site's coordinates: the
// mesh has one point more than sites per dimension, from offset - 1/2, so
// that the blocks of several files meet without a gap. A 2-D lattice is a
// 3-D mesh one cell thick: ParaView 5.11's XDMF readers (both) lay a
// 2DCoRectMesh in their Y-Z plane, not X-Y.
std::string mesh_dims(const std::array<long, 3>& e) { return zyx({e[0] + 1.0, e[1] + 1.0, e[2] + 1.0}); }
std::string mesh_origin(const std::array<long, 3>& o) { return zyx({o[0] - 0.5, o[1] - 0.5, o[2] - 0.5}); }
std::string data_dims(const std::array<long, 3>& e) {
  return std::to_string(e[2]) + " " + std::to_string(e[1]) + " " + std::to_string(e[0]);
}

std::string number_type(IoType t) {
  return t == IoType::u8
             ? R"(NumberType="UChar" Precision="1")"
             : std::string(R"(NumberType="Float" Precision=")") + (t == IoType::f64 ? "8" : "4") + "\"";
}

// Where a quantity's values are: an HDF5 dataset, or a raw binary file
// (with its byte order; each block is its own file, so it starts at 0).
std::string data_source(const IoMetadata& m, const FileEntry& e) {
  if (m.format == IoFormat::hdf5) return R"( Format="HDF">)" + e.path + ":" + m.dataset;
  return std::string(R"( Format="Binary" Endian=")") + (m.endianness == "big" ? "Big" : "Little") +
         R"(" Seek="0">)" + e.path;
}

void check_quantities(const std::vector<IoMetadata>& q) {
  if (q.empty()) throw Error("an XDMF file needs at least one quantity");
  for (const IoMetadata& m : q) {
    if (m.format == IoFormat::ascii)
      throw InputError("XDMF cannot describe ASCII data files (it reads only XML, HDF5 and raw binary)");
    if (m.order != SiteOrder::x_fastest) throw Error("XDMF needs files with x fastest");
    if (m.size != q[0].size || m.files.size() != q[0].files.size() || m.ndim != q[0].ndim)
      throw Error("XDMF quantities must be outputs of one lattice and I/O grid");
  }
}

}  // namespace

std::string xdmf_text(const std::vector<IoMetadata>& q) {
  check_quantities(q);
  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n "
       "<Domain>\n";
  const bool blocks = q[0].files.size() > 1;
  if (blocks) x << "  <Grid Name=\"lattice\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
  for (size_t f = 0; f < q[0].files.size(); ++f) {
    const FileEntry& fe = q[0].files[f];
    x << "  <Grid Name=\"block" << f << "\" GridType=\"Uniform\">\n"
      << "   <Time Value=\"" << q[0].step << "\"/>\n"
      << "   <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"" << mesh_dims(fe.extent) << "\"/>\n"
      << "   <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
      << mesh_origin(fe.offset) << "</DataItem>\n"
      << "    <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">1 1 "
         "1</DataItem>\n"
      << "   </Geometry>\n";
    for (const IoMetadata& m : q) {
      const FileEntry& e = m.files[f];
      const int nc = m.element.ncomp;
      const std::string whole = data_dims(e.extent) + " " + std::to_string(nc);
      // (append, not " " + ...: GCC 12 warns falsely about operator+ on a literal, -Wrestrict)
      const std::string item = std::string(" ").append(number_type(m.element.type)).append(data_source(m, e));
      if (nc == 1 || nc == 3) {
        x << "   <Attribute Name=\"" << m.name << "\" AttributeType=\"" << (nc == 1 ? "Scalar" : "Vector")
          << "\" Center=\"Cell\">\n    <DataItem Dimensions=\"" << whole << "\"" << item
          << "</DataItem>\n   </Attribute>\n";
        continue;
      }
      // Other component counts: each component its own scalar, cut out of the
      // data by a hyperslab (start, stride, count; then the whole data).
      for (int c = 0; c < nc; ++c) {
        const std::string cname =
            c < static_cast<int>(m.element.components.size()) ? m.element.components[c] : std::to_string(c);
        x << "   <Attribute Name=\"" << m.name << "_" << cname
          << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
          << "    <DataItem ItemType=\"HyperSlab\" Dimensions=\"" << data_dims(e.extent) << " 1\">\n"
          << "     <DataItem Dimensions=\"3 4\" Format=\"XML\">0 0 0 " << c << " 1 1 1 1 "
          << data_dims(e.extent) << " 1</DataItem>\n     <DataItem Dimensions=\"" << whole << "\"" << item
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
