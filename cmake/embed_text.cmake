# Turns a text file into a C header holding it as a string (the embedded default scene).
file(READ ${IN} CONTENT HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," CONTENT ${CONTENT})
file(WRITE ${OUT} "/* generated from ${IN}; do not edit */\nstatic const char carom_default_scene[] = {${CONTENT}0x00};\n")
