// DWARF constants as the DWARF 5 specification (section 7) spells them, plus
// the GNU and LLVM extensions that Linux builds emit. Plain integer
// constants rather than enum classes: tags, attributes and forms arrive as
// arbitrary LEB128 values from the input, and vendor values must pass
// through untouched.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"  // hex(), which messages here use too

namespace btfc::dwarf {

// Unit types (DWARF 5, 7.5.1).
inline constexpr uint8_t DW_UT_compile = 0x01, DW_UT_type = 0x02, DW_UT_partial = 0x03, DW_UT_skeleton = 0x04,
                         DW_UT_split_compile = 0x05, DW_UT_split_type = 0x06;

// Tags (7.5.3); tag_name() knows every tag llvm-dwarfdump-14 names.
inline constexpr uint32_t DW_TAG_array_type = 0x01, DW_TAG_class_type = 0x02, DW_TAG_enumeration_type = 0x04,
                          DW_TAG_formal_parameter = 0x05, DW_TAG_label = 0x0a, DW_TAG_lexical_block = 0x0b,
                          DW_TAG_member = 0x0d, DW_TAG_pointer_type = 0x0f, DW_TAG_reference_type = 0x10,
                          DW_TAG_compile_unit = 0x11, DW_TAG_structure_type = 0x13, DW_TAG_subroutine_type = 0x15,
                          DW_TAG_typedef = 0x16, DW_TAG_union_type = 0x17, DW_TAG_unspecified_parameters = 0x18,
                          DW_TAG_variant = 0x19, DW_TAG_inheritance = 0x1c, DW_TAG_inlined_subroutine = 0x1d,
                          DW_TAG_ptr_to_member_type = 0x1f, DW_TAG_subrange_type = 0x21, DW_TAG_base_type = 0x24,
                          DW_TAG_const_type = 0x26, DW_TAG_enumerator = 0x28, DW_TAG_subprogram = 0x2e,
                          DW_TAG_template_type_parameter = 0x2f, DW_TAG_template_value_parameter = 0x30,
                          DW_TAG_variant_part = 0x33, DW_TAG_variable = 0x34, DW_TAG_volatile_type = 0x35,
                          DW_TAG_restrict_type = 0x37, DW_TAG_namespace = 0x39, DW_TAG_unspecified_type = 0x3b,
                          DW_TAG_partial_unit = 0x3c, DW_TAG_imported_unit = 0x3d, DW_TAG_type_unit = 0x41,
                          DW_TAG_rvalue_reference_type = 0x42, DW_TAG_atomic_type = 0x47, DW_TAG_call_site = 0x48,
                          DW_TAG_call_site_parameter = 0x49, DW_TAG_skeleton_unit = 0x4a,
                          DW_TAG_immutable_type = 0x4b, DW_TAG_GNU_call_site = 0x4109,
                          DW_TAG_GNU_call_site_parameter = 0x410a, DW_TAG_LLVM_annotation = 0x6000;

// Attributes (7.5.4).
inline constexpr uint32_t DW_AT_sibling = 0x01, DW_AT_location = 0x02, DW_AT_name = 0x03, DW_AT_byte_size = 0x0b,
                          DW_AT_bit_offset = 0x0c, DW_AT_bit_size = 0x0d, DW_AT_stmt_list = 0x10,
                          DW_AT_low_pc = 0x11, DW_AT_high_pc = 0x12, DW_AT_language = 0x13,
                          DW_AT_comp_dir = 0x1b, DW_AT_const_value = 0x1c, DW_AT_inline = 0x20,
                          DW_AT_producer = 0x25, DW_AT_prototyped = 0x27, DW_AT_lower_bound = 0x22,
                          DW_AT_count = 0x37, DW_AT_upper_bound = 0x2f, DW_AT_abstract_origin = 0x31,
                          DW_AT_accessibility = 0x32, DW_AT_artificial = 0x34, DW_AT_calling_convention = 0x36,
                          DW_AT_data_member_location = 0x38, DW_AT_decl_file = 0x3a, DW_AT_decl_line = 0x3b,
                          DW_AT_declaration = 0x3c, DW_AT_encoding = 0x3e, DW_AT_external = 0x3f,
                          DW_AT_specification = 0x47, DW_AT_type = 0x49, DW_AT_ranges = 0x55,
                          DW_AT_data_bit_offset = 0x6b, DW_AT_signature = 0x69, DW_AT_linkage_name = 0x6e, DW_AT_alignment = 0x88,
                          DW_AT_str_offsets_base = 0x72, DW_AT_addr_base = 0x73, DW_AT_rnglists_base = 0x74,
                          DW_AT_dwo_name = 0x76, DW_AT_loclists_base = 0x8c, DW_AT_MIPS_linkage_name = 0x2007,
                          DW_AT_GNU_dwo_name = 0x2130, DW_AT_GNU_addr_base = 0x2133, DW_AT_GNU_ranges_base = 0x2132,
                          DW_AT_LLVM_annotation = 0x3e07;

// Forms (7.5.6), with the GNU forms for split DWARF and dwz.
inline constexpr uint32_t DW_FORM_addr = 0x01, DW_FORM_block2 = 0x03, DW_FORM_block4 = 0x04, DW_FORM_data2 = 0x05,
                          DW_FORM_data4 = 0x06, DW_FORM_data8 = 0x07, DW_FORM_string = 0x08, DW_FORM_block = 0x09,
                          DW_FORM_block1 = 0x0a, DW_FORM_data1 = 0x0b, DW_FORM_flag = 0x0c, DW_FORM_sdata = 0x0d,
                          DW_FORM_strp = 0x0e, DW_FORM_udata = 0x0f, DW_FORM_ref_addr = 0x10, DW_FORM_ref1 = 0x11,
                          DW_FORM_ref2 = 0x12, DW_FORM_ref4 = 0x13, DW_FORM_ref8 = 0x14, DW_FORM_ref_udata = 0x15,
                          DW_FORM_indirect = 0x16, DW_FORM_sec_offset = 0x17, DW_FORM_exprloc = 0x18,
                          DW_FORM_flag_present = 0x19, DW_FORM_strx = 0x1a, DW_FORM_addrx = 0x1b,
                          DW_FORM_ref_sup4 = 0x1c, DW_FORM_strp_sup = 0x1d, DW_FORM_data16 = 0x1e,
                          DW_FORM_line_strp = 0x1f, DW_FORM_ref_sig8 = 0x20, DW_FORM_implicit_const = 0x21,
                          DW_FORM_loclistx = 0x22, DW_FORM_rnglistx = 0x23, DW_FORM_ref_sup8 = 0x24,
                          DW_FORM_strx1 = 0x25, DW_FORM_strx2 = 0x26, DW_FORM_strx3 = 0x27, DW_FORM_strx4 = 0x28,
                          DW_FORM_addrx1 = 0x29, DW_FORM_addrx2 = 0x2a, DW_FORM_addrx3 = 0x2b,
                          DW_FORM_addrx4 = 0x2c, DW_FORM_GNU_addr_index = 0x1f01, DW_FORM_GNU_str_index = 0x1f02,
                          DW_FORM_GNU_ref_alt = 0x1f20, DW_FORM_GNU_strp_alt = 0x1f21;

// Location expression operations an encoder evaluates (7.7.1).
inline constexpr uint8_t DW_OP_addr = 0x03, DW_OP_const1u = 0x08, DW_OP_const2u = 0x0a, DW_OP_const4u = 0x0c,
                         DW_OP_const8u = 0x0e, DW_OP_constu = 0x10, DW_OP_plus_uconst = 0x23,
                         DW_OP_addrx = 0xa1, DW_OP_GNU_addr_index = 0xfb;

// Base type encodings (7.8), inline codes (7.14), calling conventions (7.15).
inline constexpr uint8_t DW_ATE_address = 0x01, DW_ATE_boolean = 0x02, DW_ATE_complex_float = 0x03,
                         DW_ATE_float = 0x04, DW_ATE_signed = 0x05, DW_ATE_signed_char = 0x06,
                         DW_ATE_unsigned = 0x07, DW_ATE_unsigned_char = 0x08, DW_ATE_UTF = 0x10;
inline constexpr uint8_t DW_INL_not_inlined = 0, DW_INL_inlined = 1, DW_INL_declared_not_inlined = 2,
                         DW_INL_declared_inlined = 3;
inline constexpr uint8_t DW_CC_normal = 1, DW_CC_program = 2, DW_CC_nocall = 3, DW_CC_pass_by_reference = 4,
                         DW_CC_pass_by_value = 5;

// Source languages (7.12) that btfc refers to by value.
inline constexpr uint16_t DW_LANG_C89 = 0x01, DW_LANG_C = 0x02, DW_LANG_C_plus_plus = 0x04, DW_LANG_C99 = 0x0c,
                          DW_LANG_Rust = 0x1c, DW_LANG_C11 = 0x1d, DW_LANG_BLISS = 0x25,
                          DW_LANG_Mips_Assembler = 0x8001;

// The DW_LANG code of a language name as pahole's --lang/--lang_exclude
// (and PAHOLE_LANG_EXCLUDE) accept it (lang__str2int, dwarves.c, 1.31):
// DW_LANG_C89 .. DW_LANG_BLISS spelled in lower case without the prefix
// ("c89", "c", "c++", "objc++", "c++14", "renderscript", "bliss"...) plus
// "asm" for DW_LANG_Mips_Assembler (what gas writes for .S files; 1.24 did
// not know it), matched case-insensitively. -1 for any other name (later
// codes such as DW_LANG_C17 are not in pahole's list).
int language_code(std::string_view name);
// The name language_code() accepts for a code, "UNKNOWN" for others
// (lang__int2str).
std::string_view language_name(uint32_t code);

// The name llvm-dwarfdump-14 prints for a tag: "DW_TAG_structure_type",
// vendor names such as "DW_TAG_GNU_call_site", and "DW_TAG_unknown_4c"
// (lowercase hex) for values it does not know.
std::string tag_name(uint32_t tag);
// "DW_FORM_strx1", or "DW_FORM_unknown_0x99"; for error messages.
std::string form_name(uint32_t form);

}  // namespace btfc::dwarf
