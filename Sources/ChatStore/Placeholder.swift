// Placeholder until the ChatStore module lands.
enum ChatStorePlaceholder {}
import CSQLite
