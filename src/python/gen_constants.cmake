# Generate the Python module's constant table from include/latrec/stages.h.
#   cmake -DHEADER=include/latrec/stages.h -DOUT=latrec_constants.h -P gen_constants.cmake
# Stages come from the LATREC_E3_STAGES X-macro (X(NAME, id) entries), the
# DROP_/SKIP_/OUT_ payload codes from the header's enums. The output is a C
# array of { name, value, is_stage } rows; nothing is copied by hand, so a
# stage appended to the header appears in the module at the next build.
file(READ "${HEADER}" text)

# The X-macro body: from "#define LATREC_E3_STAGES(X)" to its first line
# without a continuation backslash.
string(FIND "${text}" "#define LATREC_E3_STAGES(X)" at)
if(at LESS 0)
  message(FATAL_ERROR "${HEADER}: no LATREC_E3_STAGES(X) X-macro")
endif()
string(SUBSTRING "${text}" ${at} -1 tail)
string(REGEX MATCH "#define LATREC_E3_STAGES\\(X\\)([^\n]*\\\\\n)+[^\n]*" body "${tail}")
string(REGEX MATCHALL "X\\([A-Z0-9_]+, *0x[0-9A-Fa-f]+\\)" stages "${body}")
list(LENGTH stages n_stages)
if(n_stages EQUAL 0)
  message(FATAL_ERROR "${HEADER}: LATREC_E3_STAGES lists no X(NAME, id) entry")
endif()

# append_rows(ENTRIES REGEX IS_STAGE): one table row per entry, the name and
# value being REGEX's two groups.
set(rows "")
function(append_rows entries regex is_stage)
  foreach(e ${entries})
    string(REGEX REPLACE "${regex}" "\\1;\\2" pair "${e}")
    list(GET pair 0 name)
    list(GET pair 1 value)
    string(APPEND rows "    { \"${name}\", ${value}, ${is_stage} },\n")
  endforeach()
  set(rows "${rows}" PARENT_SCOPE)
endfunction()
append_rows("${stages}" "X\\(([A-Z0-9_]+), *(0x[0-9A-Fa-f]+)\\)" 1)

# Payload codes: enumerators LATREC_DROP_*, LATREC_SKIP_*, LATREC_OUT_* = N.
string(REGEX MATCHALL "LATREC_(DROP|SKIP|OUT)_[A-Z0-9_]+ *= *[0-9]+" codes "${text}")
list(LENGTH codes n_codes)
if(n_codes EQUAL 0)
  message(FATAL_ERROR "${HEADER}: no LATREC_DROP_/SKIP_/OUT_ enumerators")
endif()
append_rows("${codes}" "LATREC_([A-Z0-9_]+) *= *([0-9]+)" 0)

get_filename_component(hname "${HEADER}" NAME)
set(out "/* Generated from latrec/${hname} by src/python/gen_constants.cmake: do not edit. */\n")
string(APPEND out "static const struct latrec_py_constant latrec_py_constants[] = {\n${rows}};\n")
# Write only on change: an unchanged table does not rebuild the module.
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL out)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${out}")
