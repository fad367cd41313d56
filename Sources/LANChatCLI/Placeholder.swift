// Placeholder until the LANChatCLI module lands.
enum LANChatCLIPlaceholder {}
