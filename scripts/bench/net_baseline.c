/*
 * Raw-socket baselines for lanchat-bench, built by the benchmark at run time
 * with the system C compiler. Everything runs on 127.0.0.1 inside one
 * process (threads), bounded in count and time.
 *
 *   net_baseline fanout-latency PEERS MESSAGES BYTES
 *       one writer, PEERS reader threads over TCP; per message, the time from
 *       before the first write until the last reader has the line. Prints
 *       "p50_us p99_us".
 *   net_baseline rtt MESSAGES BYTES
 *       a line to an echo thread and back, one at a time. Prints "p50_us p99_us".
 *   net_baseline fanout-rate PEERS MESSAGES BYTES
 *       one writer sends MESSAGES lines to each of PEERS draining readers,
 *       one write(2) per line per socket (as the node does). Prints
 *       "messages_per_second".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what) { perror(what); exit(2); }

static int listener(int *port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (void *)&a, sizeof a) || listen(fd, 64)) die("listen");
    socklen_t l = sizeof a;
    getsockname(fd, (void *)&a, &l);
    *port = ntohs(a.sin_port);
    return fd;
}

static int dial(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (void *)&a, sizeof a)) die("connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) die("write");
        p += w; n -= (size_t)w;
    }
}

/* Reads until `lines` newlines have arrived; returns bytes read. */
static long read_lines(int fd, long lines, char *buf, size_t cap) {
    long seen = 0, total = 0;
    while (seen < lines) {
        ssize_t r = read(fd, buf, cap);
        if (r <= 0) die("read");
        total += r;
        for (ssize_t i = 0; i < r; i++) seen += buf[i] == '\n';
    }
    return total;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_percentiles(double *v, int n) {
    qsort(v, n, sizeof *v, cmp);
    printf("%.2f %.2f\n", v[(n - 1) / 2], v[(int)((n - 1) * 0.99)]);
}

/* ---- fan-out latency ---- */
static int g_peers, g_messages, g_bytes;
static atomic_int g_arrived;
static int g_done_pipe[2];
static double *g_last;

static void *latency_reader(void *arg) {
    int fd = (int)(long)arg;
    char buf[4096];
    for (int m = 0; m < g_messages; m++) {
        read_lines(fd, 1, buf, (size_t)g_bytes); /* at most one line per read */
        double t = now_us();
        if (atomic_fetch_add(&g_arrived, 1) + 1 == g_peers) {
            g_last[m] = t;
            char b = 1;
            write_all(g_done_pipe[1], &b, 1);
        }
    }
    return NULL;
}

static int fanout_latency(void) {
    int port, lfd = listener(&port);
    int *fds = calloc(g_peers, sizeof *fds);
    pthread_t *threads = calloc(g_peers, sizeof *threads);
    g_last = calloc(g_messages, sizeof *g_last);
    double *lat = calloc(g_messages, sizeof *lat);
    if (pipe(g_done_pipe)) die("pipe");
    for (int i = 0; i < g_peers; i++) {
        int c = dial(port);
        fds[i] = accept(lfd, NULL, NULL);
        int one = 1;
        setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_create(&threads[i], NULL, latency_reader, (void *)(long)c);
    }
    char *line = malloc(g_bytes);
    memset(line, 'x', g_bytes);
    line[g_bytes - 1] = '\n';
    for (int m = 0; m < g_messages; m++) {
        atomic_store(&g_arrived, 0);
        double t0 = now_us();
        for (int i = 0; i < g_peers; i++) write_all(fds[i], line, g_bytes);
        char b;
        if (read(g_done_pipe[0], &b, 1) != 1) die("pipe read");
        lat[m] = g_last[m] - t0;
    }
    for (int i = 0; i < g_peers; i++) pthread_join(threads[i], NULL);
    print_percentiles(lat, g_messages);
    return 0;
}

/* ---- round trip ---- */
static void *echo_thread(void *arg) {
    int fd = (int)(long)arg;
    char *buf = malloc(g_bytes);
    for (int m = 0; m < g_messages; m++) {
        read_lines(fd, 1, buf, (size_t)g_bytes);
        write_all(fd, buf, g_bytes);
    }
    return NULL;
}

static int rtt(void) {
    int port, lfd = listener(&port);
    int c = dial(port), s = accept(lfd, NULL, NULL);
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pthread_t t;
    pthread_create(&t, NULL, echo_thread, (void *)(long)s);
    char *line = malloc(g_bytes);
    memset(line, 'x', g_bytes);
    line[g_bytes - 1] = '\n';
    double *lat = calloc(g_messages, sizeof *lat);
    for (int m = 0; m < g_messages; m++) {
        double t0 = now_us();
        write_all(c, line, g_bytes);
        read_lines(c, 1, line, (size_t)g_bytes);
        lat[m] = now_us() - t0;
    }
    pthread_join(t, NULL);
    print_percentiles(lat, g_messages);
    return 0;
}

/* ---- fan-out rate ---- */
static void *drain_thread(void *arg) {
    int fd = (int)(long)arg;
    static __thread char buf[1 << 16];
    read_lines(fd, g_messages, buf, sizeof buf);
    return NULL;
}

static int fanout_rate(void) {
    int port, lfd = listener(&port);
    int *fds = calloc(g_peers, sizeof *fds);
    pthread_t *threads = calloc(g_peers, sizeof *threads);
    for (int i = 0; i < g_peers; i++) {
        int c = dial(port);
        fds[i] = accept(lfd, NULL, NULL);
        pthread_create(&threads[i], NULL, drain_thread, (void *)(long)c);
    }
    char *line = malloc(g_bytes);
    memset(line, 'x', g_bytes);
    line[g_bytes - 1] = '\n';
    double t0 = now_us();
    for (int m = 0; m < g_messages; m++)
        for (int i = 0; i < g_peers; i++) write_all(fds[i], line, g_bytes);
    for (int i = 0; i < g_peers; i++) pthread_join(threads[i], NULL);
    double elapsed = now_us() - t0;
    printf("%.0f\n", g_messages / (elapsed / 1e6));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: see the header comment\n"); return 64; }
    if (!strcmp(argv[1], "rtt") && argc == 4) {
        g_messages = atoi(argv[2]); g_bytes = atoi(argv[3]);
        return rtt();
    }
    if (argc != 5) { fprintf(stderr, "usage: see the header comment\n"); return 64; }
    g_peers = atoi(argv[2]); g_messages = atoi(argv[3]); g_bytes = atoi(argv[4]);
    if (g_peers < 1 || g_peers > 256 || g_messages < 1 || g_messages > 10000000 || g_bytes < 2 || g_bytes > 4096) return 64;
    if (!strcmp(argv[1], "fanout-latency")) return fanout_latency();
    if (!strcmp(argv[1], "fanout-rate")) return fanout_rate();
    return 64;
}
