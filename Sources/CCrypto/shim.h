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
#include <openssl/kdf.h>

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

// HKDF-SHA256 (RFC 5869, extract then expand) through EVP_KDF, for the
// sealed group beacon's key. Returns 1 on success. The parameters are
// built here because OSSL_PARAM's name macros do not reach Swift.
static inline int ccrypto_hkdf_sha256(const unsigned char *salt, size_t salt_len,
                                      const unsigned char *ikm, size_t ikm_len,
                                      const unsigned char *info, size_t info_len,
                                      unsigned char *out, size_t out_len) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, OSSL_KDF_NAME_HKDF, NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[5];
    size_t n = 0;
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len);
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
    if (salt_len > 0) params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len);
    params[n] = OSSL_PARAM_construct_end();
    int ok = EVP_KDF_derive(ctx, out, out_len, params) == 1;
    EVP_KDF_CTX_free(ctx);
    return ok;
}
