// Names of DWARF tags, forms and languages. The tag table is exactly the set
// of tags llvm-dwarfdump-14 names (tests/dwarf/tag_names_test.cc checks
// every value 1..0xffff against it), because `btfc stats` is compared with
// its output; the language names are pahole's, for --lang/--lang_exclude of
// both `btfc encode` and `btfc layout`.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>

#include "dwarf/constants.h"

namespace btfc::dwarf {

namespace {

struct Named {
  uint32_t value;
  std::string_view name;
};

// Sorted by value.
constexpr Named kTags[] = {
    {0x1, "array_type"},
    {0x2, "class_type"},
    {0x3, "entry_point"},
    {0x4, "enumeration_type"},
    {0x5, "formal_parameter"},
    {0x8, "imported_declaration"},
    {0xa, "label"},
    {0xb, "lexical_block"},
    {0xd, "member"},
    {0xf, "pointer_type"},
    {0x10, "reference_type"},
    {0x11, "compile_unit"},
    {0x12, "string_type"},
    {0x13, "structure_type"},
    {0x15, "subroutine_type"},
    {0x16, "typedef"},
    {0x17, "union_type"},
    {0x18, "unspecified_parameters"},
    {0x19, "variant"},
    {0x1a, "common_block"},
    {0x1b, "common_inclusion"},
    {0x1c, "inheritance"},
    {0x1d, "inlined_subroutine"},
    {0x1e, "module"},
    {0x1f, "ptr_to_member_type"},
    {0x20, "set_type"},
    {0x21, "subrange_type"},
    {0x22, "with_stmt"},
    {0x23, "access_declaration"},
    {0x24, "base_type"},
    {0x25, "catch_block"},
    {0x26, "const_type"},
    {0x27, "constant"},
    {0x28, "enumerator"},
    {0x29, "file_type"},
    {0x2a, "friend"},
    {0x2b, "namelist"},
    {0x2c, "namelist_item"},
    {0x2d, "packed_type"},
    {0x2e, "subprogram"},
    {0x2f, "template_type_parameter"},
    {0x30, "template_value_parameter"},
    {0x31, "thrown_type"},
    {0x32, "try_block"},
    {0x33, "variant_part"},
    {0x34, "variable"},
    {0x35, "volatile_type"},
    {0x36, "dwarf_procedure"},
    {0x37, "restrict_type"},
    {0x38, "interface_type"},
    {0x39, "namespace"},
    {0x3a, "imported_module"},
    {0x3b, "unspecified_type"},
    {0x3c, "partial_unit"},
    {0x3d, "imported_unit"},
    {0x3f, "condition"},
    {0x40, "shared_type"},
    {0x41, "type_unit"},
    {0x42, "rvalue_reference_type"},
    {0x43, "template_alias"},
    {0x44, "coarray_type"},
    {0x45, "generic_subrange"},
    {0x46, "dynamic_type"},
    {0x47, "atomic_type"},
    {0x48, "call_site"},
    {0x49, "call_site_parameter"},
    {0x4a, "skeleton_unit"},
    {0x4b, "immutable_type"},
    {0x4081, "MIPS_loop"},
    {0x4101, "format_label"},
    {0x4102, "function_template"},
    {0x4103, "class_template"},
    {0x4104, "GNU_BINCL"},
    {0x4105, "GNU_EINCL"},
    {0x4106, "GNU_template_template_param"},
    {0x4107, "GNU_template_parameter_pack"},
    {0x4108, "GNU_formal_parameter_pack"},
    {0x4109, "GNU_call_site"},
    {0x410a, "GNU_call_site_parameter"},
    {0x4200, "APPLE_property"},
    {0x4201, "SUN_function_template"},
    {0x4202, "SUN_class_template"},
    {0x4203, "SUN_struct_template"},
    {0x4204, "SUN_union_template"},
    {0x4205, "SUN_indirect_inheritance"},
    {0x4206, "SUN_codeflags"},
    {0x4207, "SUN_memop_info"},
    {0x4208, "SUN_omp_child_func"},
    {0x4209, "SUN_rtti_descriptor"},
    {0x420a, "SUN_dtor_info"},
    {0x420b, "SUN_dtor"},
    {0x420c, "SUN_f90_interface"},
    {0x420d, "SUN_fortran_vax_structure"},
    {0x42ff, "SUN_hi"},
    {0x5101, "ALTIUM_circ_type"},
    {0x5102, "ALTIUM_mwa_circ_type"},
    {0x5103, "ALTIUM_rev_carry_type"},
    {0x5111, "ALTIUM_rom"},
    {0x6000, "LLVM_annotation"},
    {0x8004, "GHS_namespace"},
    {0x8005, "GHS_using_namespace"},
    {0x8006, "GHS_using_declaration"},
    {0x8007, "GHS_template_templ_param"},
    {0x8765, "UPC_shared_type"},
    {0x8766, "UPC_strict_type"},
    {0x8767, "UPC_relaxed"},
    {0xa000, "PGI_kanji_type"},
    {0xa020, "PGI_interface_block"},
    {0xb000, "BORLAND_property"},
    {0xb001, "BORLAND_Delphi_string"},
    {0xb002, "BORLAND_Delphi_dynamic_array"},
    {0xb003, "BORLAND_Delphi_set"},
    {0xb004, "BORLAND_Delphi_variant"},
};

constexpr Named kForms[] = {
    {0x01, "addr"},       {0x03, "block2"},       {0x04, "block4"},         {0x05, "data2"},
    {0x06, "data4"},      {0x07, "data8"},        {0x08, "string"},         {0x09, "block"},
    {0x0a, "block1"},     {0x0b, "data1"},        {0x0c, "flag"},           {0x0d, "sdata"},
    {0x0e, "strp"},       {0x0f, "udata"},        {0x10, "ref_addr"},       {0x11, "ref1"},
    {0x12, "ref2"},       {0x13, "ref4"},         {0x14, "ref8"},           {0x15, "ref_udata"},
    {0x16, "indirect"},   {0x17, "sec_offset"},   {0x18, "exprloc"},        {0x19, "flag_present"},
    {0x1a, "strx"},       {0x1b, "addrx"},        {0x1c, "ref_sup4"},       {0x1d, "strp_sup"},
    {0x1e, "data16"},     {0x1f, "line_strp"},    {0x20, "ref_sig8"},       {0x21, "implicit_const"},
    {0x22, "loclistx"},   {0x23, "rnglistx"},     {0x24, "ref_sup8"},       {0x25, "strx1"},
    {0x26, "strx2"},      {0x27, "strx3"},        {0x28, "strx4"},          {0x29, "addrx1"},
    {0x2a, "addrx2"},     {0x2b, "addrx3"},       {0x2c, "addrx4"},         {0x1f01, "GNU_addr_index"},
    {0x1f02, "GNU_str_index"}, {0x1f20, "GNU_ref_alt"}, {0x1f21, "GNU_strp_alt"},
};

template <size_t N>
std::string_view find(const Named (&table)[N], uint32_t value) {
  auto it = std::lower_bound(std::begin(table), std::end(table), value,
                             [](const Named& n, uint32_t v) { return n.value < v; });
  return it != std::end(table) && it->value == value ? it->name : std::string_view();
}

// pahole's language names, by value (see language_code()).
constexpr Named kLanguages[] = {
    {0x01, "c89"},     {0x02, "c"},        {0x03, "ada83"},    {0x04, "c++"},          {0x05, "cobol74"},
    {0x06, "cobol85"}, {0x07, "fortran77"}, {0x08, "fortran90"}, {0x09, "pascal83"},     {0x0a, "modula2"},
    {0x0b, "java"},    {0x0c, "c99"},      {0x0d, "ada95"},    {0x0e, "fortran95"},    {0x0f, "pli"},
    {0x10, "objc"},    {0x11, "objc++"},   {0x12, "upc"},      {0x13, "d"},            {0x14, "python"},
    {0x15, "opencl"},  {0x16, "go"},       {0x17, "modula3"},  {0x18, "haskell"},      {0x19, "c++03"},
    {0x1a, "c++11"},   {0x1b, "ocaml"},    {0x1c, "rust"},     {0x1d, "c11"},          {0x1e, "swift"},
    {0x1f, "julia"},   {0x20, "dylan"},    {0x21, "c++14"},    {0x22, "fortran03"},    {0x23, "fortran08"},
    {0x24, "renderscript"}, {0x25, "bliss"}, {DW_LANG_Mips_Assembler, "asm"},
};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

}  // namespace

int language_code(std::string_view name) {
  for (const Named& l : kLanguages)
    if (equal_ignoring_case(name, l.name)) return static_cast<int>(l.value);
  return -1;
}

std::string_view language_name(uint32_t code) {
  std::string_view n = find(kLanguages, code);
  return n.empty() ? std::string_view("UNKNOWN") : n;
}

std::string tag_name(uint32_t tag) {
  std::string_view n = find(kTags, tag);
  if (!n.empty()) return "DW_TAG_" + std::string(n);
  char buf[40];
  std::snprintf(buf, sizeof buf, "DW_TAG_unknown_%x", tag);
  return buf;
}

std::string form_name(uint32_t form) {
  std::string_view n = find(kForms, form);
  if (!n.empty()) return "DW_FORM_" + std::string(n);
  char buf[40];
  std::snprintf(buf, sizeof buf, "DW_FORM_unknown_0x%x", form);
  return buf;
}

}  // namespace btfc::dwarf
