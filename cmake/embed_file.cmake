file(READ "${IN}" content)
file(WRITE "${OUT}" "// Generated from ${IN}; edit that file instead.\n#include <string_view>\nnamespace gpusim::embedded {\nstd::string_view ${NAME}() {\n  static constexpr std::string_view text = R\"gpusim_embed(${content})gpusim_embed\";\n  return text;\n}\n}  // namespace gpusim::embedded\n")
