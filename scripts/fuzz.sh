#!/usr/bin/env bash
# Builds and runs the libFuzzer targets in scripts/fuzz/ (swiftc -sanitize=fuzzer,address).
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]   fuzz one target
#   scripts/fuzz.sh --ci                                   every target ~20 s (FUZZ_CI_SECONDS;
#                                                          payload-differential ~20 s): a smoke
#                                                          run that keeps CI short; fuzz longer by hand
#   scripts/fuzz.sh --build                                build every target, run nothing
#   scripts/fuzz.sh --list                                 target names
#
# Targets: payload-decoding
# (P2PFrameCodec.decode, Message, MessageText, NodeName, TerminalText),
# beacon-parsing (DiscoveryBeacon.decode), payload-differential (the codec's
# fast path against its JSONDecoder path on every input: both give the same
# frame or the same FrameError whenever the fast path answers),
# handshake-reading (NoiseHandshake.readMessage/readIdentityMessage),
# record-decoding (RecordFrameDecoder, RecordCipher.open), overlay-differential
# (OverlayFrameParser against the overlay codec's JSONDecoder path: the same
# header and frame, or the same OverlayFrameError, whenever the parser answers).
#
# SwiftPM does not build fuzz targets, so this compiles ChatCore and ChatWire
# (Foundation only) into static libraries with coverage and AddressSanitizer, then each
# target against it; the crypto targets also link ChatCrypto, built the
# same way against the system libcrypto (Sources/CCrypto); the overlay target also
# links ChatOverlay (ChatCore, ChatWire, Foundation). Output goes to .build-fuzz/: the binaries, a working
# corpus per target (seeded from scripts/fuzz/corpus/TARGET, which stays as
# committed), and crash inputs (crash-*). Exit status: 0 if no target
# crashed, non-zero otherwise. A crash input replays with
#   .build-fuzz/TARGET .build-fuzz/crashes/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=.build-fuzz
# The Swift runtime backtracer and ASan fight over a crashing process; let
# libFuzzer report crashes alone.
export SWIFT_BACKTRACE=enable=no
# No allocation stack traces: several times faster, and a crash report
# still shows where it happened.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0:detect_leaks=0}
TARGETS=(payload-decoding beacon-parsing payload-differential handshake-reading record-decoding overlay-differential)
# Targets that need ChatCrypto (and libcrypto) linked in.
CRYPTO_TARGETS=" handshake-reading record-decoding "
# Targets that need ChatOverlay linked in.
OVERLAY_TARGETS=" overlay-differential "

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# Source file, extra sources and libFuzzer options per target.
target_source() {
    case "$1" in
        payload-decoding) echo scripts/fuzz/PayloadDecoding.swift ;;
        beacon-parsing) echo "scripts/fuzz/BeaconParsing.swift Sources/P2PTransport/DiscoveryBeacon.swift" ;;
        payload-differential) echo scripts/fuzz/PayloadDifferential.swift ;;
        handshake-reading) echo scripts/fuzz/HandshakeReading.swift ;;
        record-decoding) echo scripts/fuzz/RecordDecoding.swift ;;
        overlay-differential) echo scripts/fuzz/OverlayDifferential.swift ;;
        *) return 1 ;;
    esac
}
target_options() {
    case "$1" in
        payload-decoding) echo "-max_len=8192 -dict=scripts/fuzz/payload.dict" ;;
        beacon-parsing) echo "-max_len=1100 -dict=scripts/fuzz/beacon.dict" ;;
        payload-differential) echo "-max_len=8192 -dict=scripts/fuzz/payload.dict" ;;
        handshake-reading) echo "-max_len=400" ;;
        record-decoding) echo "-max_len=4096" ;;
        overlay-differential) echo "-max_len=8192 -dict=scripts/fuzz/overlay.dict" ;;
    esac
}
# The committed seed corpus per target (the differential target starts from
# the decoding target's frames).
seed_corpus() {
    case "$1" in
        payload-differential) echo scripts/fuzz/corpus/payload-decoding ;;
        *) echo "scripts/fuzz/corpus/$1" ;;
    esac
}

if ! command -v swiftc >/dev/null; then echo "fuzz.sh: swiftc not found" >&2; exit 1; fi
# -package-name: ChatWire shares `package` declarations with the modules built beside it, as under SwiftPM.
SWIFTC=(swiftc -parse-as-library -O -g -sanitize=fuzzer,address -use-ld=lld -package-name lanchat)

# Rebuilds $1 when any of the following files is newer.
stale() {
    local output=$1; shift
    [ -f "$output" ] || return 0
    for input in "$@"; do [ "$input" -nt "$output" ] && return 0; done
    return 1
}

build_core() {
    mkdir -p "$BUILD/core"
    # The look-alike data is compiled in from Sources/ChatCore/Unicode, as
    # SwiftPM's LookAlikeDataPlugin does.
    local unicode=(Sources/ChatCore/Unicode/confusables.txt Sources/ChatCore/Unicode/scripts.txt)
    if stale "$BUILD/core/LookAlikeData.swift" "${unicode[@]}" Sources/LookAlikeDataGenerator/main.swift; then
        swiftc -O Sources/LookAlikeDataGenerator/main.swift -o "$BUILD/core/LookAlikeDataGenerator"
        "$BUILD/core/LookAlikeDataGenerator" "${unicode[@]}" "$BUILD/core/LookAlikeData.swift"
        touch "$BUILD/core/LookAlikeData.swift"
    fi
    local sources=(Sources/ChatCore/*.swift "$BUILD/core/LookAlikeData.swift")
    if stale "$BUILD/core/libChatCore.a" "${sources[@]}" "$0"; then
        echo "fuzz.sh: building ChatCore with coverage and ASan" >&2
        # -enable-testing: as ChatWire below.
        "${SWIFTC[@]}" -enable-testing -module-name ChatCore -emit-module -emit-module-path "$BUILD/core/ChatCore.swiftmodule" \
            -emit-library -static -o "$BUILD/core/libChatCore.a" "${sources[@]}"
    fi
    local wire=(Sources/ChatWire/*.swift)
    if stale "$BUILD/core/libChatWire.a" "${wire[@]}" "$BUILD/core/libChatCore.a" "$0"; then
        echo "fuzz.sh: building ChatWire with coverage and ASan" >&2
        # -enable-testing: the differential target reaches the codec's two internal parsers.
        "${SWIFTC[@]}" -enable-testing -module-name ChatWire -I "$BUILD/core" \
            -emit-module -emit-module-path "$BUILD/core/ChatWire.swiftmodule" \
            -emit-library -static -o "$BUILD/core/libChatWire.a" "${wire[@]}"
    fi
}

# ChatCrypto with -enable-testing, so targets can fix ephemeral keys.
build_crypto() {
    local sources=(Sources/ChatCrypto/*.swift)
    if stale "$BUILD/core/libChatCrypto.a" "${sources[@]}" "$BUILD/core/libChatCore.a" "$0"; then
        echo "fuzz.sh: building ChatCrypto with coverage and ASan" >&2
        "${SWIFTC[@]}" -enable-testing -module-name ChatCrypto -I "$BUILD/core" -I Sources/CCrypto \
            -emit-module -emit-module-path "$BUILD/core/ChatCrypto.swiftmodule" \
            -emit-library -static -o "$BUILD/core/libChatCrypto.a" "${sources[@]}"
    fi
}

# ChatOverlay, for the overlay codec's targets (its parser's `package` members need -package-name, as above).
build_overlay() {
    local sources=(Sources/ChatOverlay/*.swift)
    if stale "$BUILD/core/libChatOverlay.a" "${sources[@]}" "$BUILD/core/libChatWire.a" "$0"; then
        echo "fuzz.sh: building ChatOverlay with coverage and ASan" >&2
        "${SWIFTC[@]}" -module-name ChatOverlay -I "$BUILD/core" \
            -emit-module -emit-module-path "$BUILD/core/ChatOverlay.swiftmodule" \
            -emit-library -static -o "$BUILD/core/libChatOverlay.a" "${sources[@]}"
    fi
}

build_target() {
    local target=$1 sources
    sources=$(target_source "$target") || { echo "fuzz.sh: unknown target '$target' (try --list)" >&2; exit 2; }
    # shellcheck disable=SC2086
    local crypto=()
    if [[ "$CRYPTO_TARGETS" == *" $target "* ]]; then
        build_crypto
        crypto=(-I Sources/CCrypto -lChatCrypto -lcrypto)
    fi
    local overlay=()
    if [[ "$OVERLAY_TARGETS" == *" $target "* ]]; then
        build_overlay
        overlay=(-lChatOverlay)
    fi
    # shellcheck disable=SC2086
    if stale "$BUILD/$target" $sources scripts/fuzz/FuzzInput.swift "$BUILD/core/libChatCore.a" "$BUILD/core/libChatWire.a" "$BUILD/core/libChatCrypto.a" "$BUILD/core/libChatOverlay.a"; then
        echo "fuzz.sh: building $target" >&2
        # shellcheck disable=SC2086
        "${SWIFTC[@]}" -module-name "Fuzz_${target//-/_}" -I "$BUILD/core" -L "$BUILD/core" "${crypto[@]}" "${overlay[@]}" -lChatWire -lChatCore \
            scripts/fuzz/FuzzInput.swift $sources -o "$BUILD/$target"
    fi
}

# Runs one target for $2 seconds; extra arguments go to libFuzzer.
run_target() {
    local target=$1 seconds=$2; shift 2
    local corpus="$BUILD/corpus/$target" crashes="$BUILD/crashes/$target"
    mkdir -p "$corpus" "$crashes"
    echo "fuzz.sh: $target for $seconds s" >&2
    # shellcheck disable=SC2046
    "$BUILD/$target" "$corpus" "$(seed_corpus "$target")" $(target_options "$target") \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crashes/" "$@"
}

case "${1:-}" in
    --list) printf '%s\n' "${TARGETS[@]}" ;;
    --build)
        build_core
        for target in "${TARGETS[@]}"; do build_target "$target"; done ;;
    --ci)
        seconds=${FUZZ_CI_SECONDS:-20}
        build_core
        for target in "${TARGETS[@]}"; do build_target "$target"; done
        status=0
        for target in "${TARGETS[@]}"; do
            # The differential and crypto targets get at most 30 s each.
            target_seconds=$seconds
            [ "$target" = payload-differential ] && target_seconds=${FUZZ_CI_DIFFERENTIAL_SECONDS:-20}
            if [[ "$CRYPTO_TARGETS" == *" $target "* ]] && [ "$seconds" -gt 30 ]; then target_seconds=30; fi
            if ! run_target "$target" "$target_seconds" 2> >(grep -Ev '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' >&2); then
                echo "fuzz.sh: $target CRASHED; the input is in $BUILD/crashes/$target/" >&2
                status=1
            fi
        done
        exit $status ;;
    ""|-h|--help) usage ;;
    *)
        [ $# -ge 2 ] || usage
        target=$1 seconds=$2; shift 2
        [[ "$seconds" =~ ^[0-9]+$ ]] || usage
        build_core
        build_target "$target"
        run_target "$target" "$seconds" "$@" ;;
esac
