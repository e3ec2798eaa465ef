// Loading ServerOptions from a TOML file (config/freshet.example.toml
// documents every option with its default).
#pragma once

#include <string>

#include "frontend/instance.h"

namespace freshet {

// Overlays the options found in the file onto `options`. Returns an error
// status naming the file and the problem (syntax, unknown key, bad type).
Status LoadConfigFile(const std::string& path, ServerOptions* options);

}  // namespace freshet
