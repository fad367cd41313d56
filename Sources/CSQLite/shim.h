#include <sqlite3.h>

/// Turns SQLite's memory statistics on or off for the whole process. Off,
/// sqlite3_malloc and sqlite3_free skip the one global mutex that guards
/// the statistics, which every connection in the process shares (several
/// nodes in one process contended on it). Only effective before SQLite is
/// initialized (the first open); SQLITE_MISUSE after. A wrapper because
/// sqlite3_config is variadic, which Swift cannot call.
static inline int lanchat_sqlite3_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}
