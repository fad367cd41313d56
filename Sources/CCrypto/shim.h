// OpenSSL 3 libcrypto (Debian: libssl-dev). Only the EVP layer is used:
// ChatCrypto wraps it, never reimplements a primitive.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

// Key type ids are macros of macros; give Swift plain constants.
static const int CCRYPTO_PKEY_X25519 = EVP_PKEY_X25519;
static const int CCRYPTO_PKEY_ED25519 = EVP_PKEY_ED25519;
static const int CCRYPTO_CTRL_AEAD_SET_IVLEN = EVP_CTRL_AEAD_SET_IVLEN;
static const int CCRYPTO_CTRL_AEAD_GET_TAG = EVP_CTRL_AEAD_GET_TAG;
static const int CCRYPTO_CTRL_AEAD_SET_TAG = EVP_CTRL_AEAD_SET_TAG;

// An HMAC context with its digest (SHA-256) already set, to be copied with
// EVP_MAC_CTX_dup for each MAC: setting the digest by name, as HMAC() and
// EVP_Q_mac do on every call, makes libcrypto 3.0 fetch the MAC and the
// digest again each time. NULL if libcrypto lacks either.
static inline EVP_MAC_CTX *ccrypto_hmac_sha256_template(void) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_HMAC, NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);  // the context keeps its own reference
    if (ctx == NULL) return NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_CTX_set_params(ctx, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}
