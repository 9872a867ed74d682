# cmake -DINPUT=<file> -DOUTPUT=<file.cpp> -DSYMBOL=<name> -P gpubench_embed.cmake
# Writes a C++ file that defines `const unsigned char SYMBOL[]` (the file's bytes, then a NUL)
# and `const size_t SYMBOL_size` (the bytes without the NUL): a Python plugin's script and
# the bridge's helper travel inside the plugin's library, so nothing is looked for at run time.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}: do not edit.\n#include <cstddef>\n"
  "extern const unsigned char ${SYMBOL}[] = {\n${bytes}0x00};\n"
  "extern const size_t ${SYMBOL}_size = ${size};\n")
