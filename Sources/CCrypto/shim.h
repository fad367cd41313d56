// OpenSSL 3 libcrypto (Debian: libssl-dev). Only the EVP layer is used:
// ChatCrypto wraps it, never reimplements a primitive.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>

// Key type ids are macros of macros; give Swift plain constants.
static const int CCRYPTO_PKEY_X25519 = EVP_PKEY_X25519;
static const int CCRYPTO_PKEY_ED25519 = EVP_PKEY_ED25519;
static const int CCRYPTO_CTRL_AEAD_SET_IVLEN = EVP_CTRL_AEAD_SET_IVLEN;
static const int CCRYPTO_CTRL_AEAD_GET_TAG = EVP_CTRL_AEAD_GET_TAG;
static const int CCRYPTO_CTRL_AEAD_SET_TAG = EVP_CTRL_AEAD_SET_TAG;
