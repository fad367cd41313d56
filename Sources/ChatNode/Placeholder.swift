// Placeholder until the ChatNode module lands.
enum ChatNodePlaceholder {}
