/*
 * Raw SQLite insert baseline for lanchat-bench, built by the benchmark at
 * run time (cc ... -lsqlite3). Same table, index, pragmas and row shape as
 * ChatStore (WAL, synchronous=FULL), rows bound with sqlite3_bind_* in
 * transactions of BATCH rows; nothing else (no rooms table, no Swift).
 *
 *   sqlite_baseline PATH COUNT BATCH          prints "rows_per_second"
 *   sqlite_baseline PATH COUNT 1 latency      prints "p50_us p99_us" of each
 *                                             one-row transaction (a DM's commit)
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
        exit(2);
    }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: sqlite_baseline PATH COUNT BATCH [latency]\n"); return 64; }
    long count = atol(argv[2]), batch = atol(argv[3]);
    int latency = argc == 5 && strcmp(argv[4], "latency") == 0;
    if (count < 1 || batch < 1 || (argc == 5 && !latency) || (latency && batch != 1)) return 64;
    double *commits = latency ? calloc((size_t)count, sizeof(double)) : NULL;
    sqlite3 *db;
    /* As the store: no memory statistics (their global mutex), before the open. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    check(sqlite3_open(argv[1], &db), db, "open");
    check(sqlite3_exec(db,
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
        "CREATE TABLE messages (id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16), room TEXT NOT NULL,"
        " sent_at INTEGER NOT NULL, sender INTEGER NOT NULL, nickname TEXT NOT NULL, stage TEXT,"
        " content TEXT NOT NULL, automatic INTEGER NOT NULL DEFAULT 0, delivery TEXT) WITHOUT ROWID;"
        "CREATE INDEX messages_room_time ON messages (room, sent_at, id);", 0, 0, 0), db, "schema");
    sqlite3_stmt *insert, *begin, *commit;
    check(sqlite3_prepare_v2(db,
        "INSERT INTO messages (id, room, sent_at, sender, nickname, stage, content, automatic)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (id) DO NOTHING", -1, &insert, 0), db, "prepare");
    check(sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, 0), db, "prepare");
    check(sqlite3_prepare_v2(db, "COMMIT", -1, &commit, 0), db, "prepare");
    const char *content = "a benchmark line of ordinary chat length, about sixty bytes";
    uint64_t base = 1732147200000ULL;
    double t0 = now_s();
    double began = t0;
    for (long i = 0; i < count; i++) {
        if (latency) began = now_s();
        if (i % batch == 0) { check(sqlite3_step(begin), db, "begin"); sqlite3_reset(begin); }
        uint64_t ms = base + (uint64_t)i / 10;
        unsigned char id[16];
        for (int b = 0; b < 6; b++) id[b] = (unsigned char)(ms >> (40 - 8 * b));
        id[6] = 0x70; id[7] = (unsigned char)i;
        for (int b = 8; b < 16; b++) id[b] = (unsigned char)(((uint64_t)i * 0x9E3779B97F4A7C15ULL) >> (8 * (b - 8)));
        id[8] = (id[8] & 0x3f) | 0x80;
        sqlite3_bind_blob(insert, 1, id, 16, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, "public", -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 3, (sqlite3_int64)ms);
        sqlite3_bind_int64(insert, 4, 4711 + i % 10);
        sqlite3_bind_text(insert, 5, "bench", -1, SQLITE_TRANSIENT);
        sqlite3_bind_null(insert, 6);
        sqlite3_bind_text(insert, 7, content, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 8, 0);
        check(sqlite3_step(insert), db, "insert");
        sqlite3_reset(insert);
        if (i % batch == batch - 1 || i == count - 1) { check(sqlite3_step(commit), db, "commit"); sqlite3_reset(commit); }
        if (latency) commits[i] = (now_s() - began) * 1e6;
    }
    double elapsed = now_s() - t0;
    if (latency) {
        qsort(commits, (size_t)count, sizeof(double), by_value);
        printf("%.1f %.1f\n", commits[(count - 1) / 2], commits[(long)((count - 1) * 0.99)]);
        free(commits);
    } else {
        printf("%.0f\n", count / elapsed);
    }
    sqlite3_finalize(insert); sqlite3_finalize(begin); sqlite3_finalize(commit);
    sqlite3_close(db);
    return 0;
}
