/*
 * The ceiling for the `file` row: the least work a transfer of a file over
 * an encrypted loopback link can do, with no lanchat code. Two threads in
 * one process (as the row's two FileTransferServices are):
 *
 *   sender:   pread 65 519-byte plaintext records (9-byte header + 65 510
 *             file bytes, the transfer link's record) -> libcrypto
 *             ChaCha20-Poly1305 seal -> 2-byte length + record -> send(2)
 *   receiver: recv(2) into a buffer -> open in place -> SHA-256 (EVP) ->
 *             pwrite(2) to a new file -> fsync at the end
 *
 * With THREADS 3 the receiver hands each opened record (a slot of a ring
 * of 16, no copy) to a third thread that hashes it, so the receiver's
 * work is split over both cores.
 *
 *   file_baseline SOURCE DEST THREADS NICE
 *       copies SOURCE to DEST over 127.0.0.1, every thread at niceness
 *       NICE (lanchat's transfer threads run at 10). Prints one line:
 *       "bytes wall_s read_s seal_s send_s recv_s open_s sha_s write_s fsync_s"
 *       where each stage figure is the CPU seconds (CLOCK_THREAD_CPUTIME_ID,
 *       user + kernel) its thread spent in it; fsync_s is wall time.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 65510
#define HEADER 9
#define TAG 16
#define RECORD (HEADER + CHUNK + TAG)

static const unsigned char key[32] = {7};

static void die(const char *what) { perror(what); exit(2); }

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nonce_for(uint64_t counter, unsigned char nonce[12]) {
    memset(nonce, 0, 12);
    for (int i = 0; i < 8; i++) nonce[4 + i] = (unsigned char)(counter >> (8 * i));
}

struct job {
    const char *path;
    int fd;
    long long size;
    double stage[4];  /* sender: read, seal, send; receiver: recv, open, sha, write, fsync */
    double rstage[5];
};

static void *sender(void *arg) {
    struct job *job = arg;
    int file = open(job->path, O_RDONLY);
    if (file < 0) die("open source");
    posix_fadvise(file, 0, 0, POSIX_FADV_SEQUENTIAL);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx || EVP_CipherInit_ex(ctx, EVP_chacha20_poly1305(), NULL, key, NULL, 1) != 1) die("EVP init");
    static unsigned char plain[HEADER + CHUNK], out[2 + RECORD];
    unsigned char nonce[12];
    uint64_t counter = 0;
    for (long long position = 0; position < job->size;) {
        double t0 = cpu();
        size_t want = job->size - position < CHUNK ? (size_t)(job->size - position) : CHUNK;
        ssize_t got = pread(file, plain + HEADER, want, position);
        if (got <= 0) die("pread");
        plain[0] = 2;
        for (int i = 0; i < 8; i++) plain[1 + i] = (unsigned char)((uint64_t)position >> (56 - 8 * i));
        double t1 = cpu();
        int length = 0, n = HEADER + (int)got;
        nonce_for(counter++, nonce);
        if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, nonce, 1) != 1 ||
            EVP_EncryptUpdate(ctx, out + 2, &length, plain, n) != 1 ||
            EVP_EncryptFinal_ex(ctx, out + 2 + n, &length) != 1 ||
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG, out + 2 + n) != 1) die("seal");
        out[0] = (unsigned char)((n + TAG) >> 8);
        out[1] = (unsigned char)((n + TAG) & 0xFF);
        double t2 = cpu();
        for (size_t sent = 0, total = 2 + n + TAG; sent < total;) {
            ssize_t w = send(job->fd, out + sent, total - sent, MSG_NOSIGNAL);
            if (w <= 0) die("send");
            sent += w;
        }
        double t3 = cpu();
        job->stage[0] += t1 - t0;
        job->stage[1] += t2 - t1;
        job->stage[2] += t3 - t2;
        position += got;
    }
    EVP_CIPHER_CTX_free(ctx);
    close(file);
    return NULL;
}

static void recv_all(int fd, unsigned char *p, size_t n) {
    while (n) {
        ssize_t r = recv(fd, p, n, MSG_WAITALL);
        if (r <= 0) die("recv");
        p += r;
        n -= (size_t)r;
    }
}

/* Opened records waiting for the hashing thread: slot, length. */
#define SLOTS 16
struct ring {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned char *slot[SLOTS];
    int length[SLOTS];
    long long added, hashed;
    int done;
    EVP_MD_CTX *md;
    double sha;
};

static void *hasher(void *arg) {
    struct ring *ring = arg;
    for (;;) {
        pthread_mutex_lock(&ring->lock);
        while (ring->hashed == ring->added && !ring->done) pthread_cond_wait(&ring->changed, &ring->lock);
        if (ring->hashed == ring->added) {
            pthread_mutex_unlock(&ring->lock);
            return NULL;
        }
        int index = (int)(ring->hashed % SLOTS);
        pthread_mutex_unlock(&ring->lock);
        double t0 = cpu();
        EVP_DigestUpdate(ring->md, ring->slot[index] + HEADER, ring->length[index]);
        ring->sha += cpu() - t0;
        pthread_mutex_lock(&ring->lock);
        ring->hashed++;
        pthread_cond_broadcast(&ring->changed);
        pthread_mutex_unlock(&ring->lock);
    }
}

static void receive(struct job *job, const char *dest, int threads) {
    int file = open(dest, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (file < 0) die("open dest");
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    struct ring ring = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER, .md = EVP_MD_CTX_new()};
    if (!ctx || !ring.md || EVP_CipherInit_ex(ctx, EVP_chacha20_poly1305(), NULL, key, NULL, 0) != 1 ||
        EVP_DigestInit_ex(ring.md, EVP_sha256(), NULL) != 1) die("EVP init");
    for (int i = 0; i < SLOTS; i++) ring.slot[i] = malloc(RECORD);
    pthread_t thread;
    if (threads == 3 && pthread_create(&thread, NULL, hasher, &ring)) die("pthread_create");
    unsigned char nonce[12], header[2];
    uint64_t counter = 0;
    long long have = 0;
    while (have < job->size) {
        int index = (int)(counter % SLOTS);
        if (threads == 3) {  /* wait for the slot to be hashed */
            pthread_mutex_lock(&ring.lock);
            while (ring.added - ring.hashed >= SLOTS) pthread_cond_wait(&ring.changed, &ring.lock);
            pthread_mutex_unlock(&ring.lock);
        }
        unsigned char *record = ring.slot[index];
        double t0 = cpu();
        recv_all(job->fd, header, 2);
        size_t length = (size_t)header[0] << 8 | header[1];
        if (length < HEADER + TAG || length > RECORD) die("record length");
        recv_all(job->fd, record, length);
        double t1 = cpu();
        int n = (int)length - TAG, out = 0;
        nonce_for(counter++, nonce);
        if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, nonce, 0) != 1 ||
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAG, record + n) != 1 ||
            EVP_DecryptUpdate(ctx, record, &out, record, n) != 1 ||
            EVP_DecryptFinal_ex(ctx, record + n, &out) != 1) die("open");
        double t2 = cpu();
        for (int done = 0; done < n - HEADER;) {
            ssize_t w = pwrite(file, record + HEADER + done, n - HEADER - done, have + done);
            if (w <= 0) die("pwrite");
            done += w;
        }
        double t3 = cpu();
        if (threads == 3) {
            pthread_mutex_lock(&ring.lock);
            ring.length[index] = n - HEADER;
            ring.added++;
            pthread_cond_broadcast(&ring.changed);
            pthread_mutex_unlock(&ring.lock);
        } else {
            EVP_DigestUpdate(ring.md, record + HEADER, n - HEADER);
            ring.sha += cpu() - t3;
        }
        have += n - HEADER;
        job->rstage[0] += t1 - t0;
        job->rstage[1] += t2 - t1;
        job->rstage[3] += t3 - t2;
    }
    if (threads == 3) {
        pthread_mutex_lock(&ring.lock);
        ring.done = 1;
        pthread_cond_broadcast(&ring.changed);
        pthread_mutex_unlock(&ring.lock);
        pthread_join(thread, NULL);
    }
    job->rstage[2] = ring.sha;
    unsigned char digest[32];
    unsigned int digestLength = 0;
    EVP_DigestFinal_ex(ring.md, digest, &digestLength);
    double f0 = wall();
    if (fsync(file)) die("fsync");
    job->rstage[4] = wall() - f0;
    close(file);
    EVP_MD_CTX_free(ring.md);
    EVP_CIPHER_CTX_free(ctx);
}

int main(int argc, char **argv) {
    if (argc != 5 || (atoi(argv[3]) != 2 && atoi(argv[3]) != 3)) {
        fprintf(stderr, "usage: file_baseline SOURCE DEST 2|3 NICE\n");
        return 2;
    }
    /* Before any thread starts: new threads inherit it. */
    if (setpriority(PRIO_PROCESS, 0, atoi(argv[4]))) die("setpriority");
    struct stat info;
    if (stat(argv[1], &info)) die("stat");
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (bind(lfd, (void *)&a, sizeof a) || listen(lfd, 1) || getsockname(lfd, (void *)&a, &l)) die("listen");
    int client = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(client, (void *)&a, sizeof a)) die("connect");
    int server = accept(lfd, NULL, NULL);
    if (server < 0) die("accept");
    close(lfd);

    struct job job = {.path = argv[1], .fd = client, .size = info.st_size};
    struct job rjob = {.fd = server, .size = info.st_size};
    double started = wall();
    pthread_t thread;
    if (pthread_create(&thread, NULL, sender, &job)) die("pthread_create");
    receive(&rjob, argv[2], atoi(argv[3]));
    pthread_join(thread, NULL);
    double seconds = wall() - started;
    printf("%lld %.4f %.4f %.4f %.4f %.4f %.4f %.4f %.4f %.4f\n", (long long)info.st_size, seconds, job.stage[0], job.stage[1],
           job.stage[2], rjob.rstage[0], rjob.rstage[1], rjob.rstage[2], rjob.rstage[3], rjob.rstage[4]);
    close(client);
    close(server);
    return 0;
}
