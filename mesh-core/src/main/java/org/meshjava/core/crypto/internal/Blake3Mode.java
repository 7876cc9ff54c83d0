package org.meshjava.core.crypto.internal;

/**
 * A BLAKE3 mode as the tree sees it: the key words every chunk and parent node starts from (the IV
 * when hashing, the key in keyed mode, the context key when deriving a key) and the domain flags
 * every node carries besides its own ({@code KEYED_HASH}, {@code DERIVE_KEY_*}, or none). Fixed for
 * the whole of one hash, so the hashers and kernels pass it as one value.
 *
 * @param key the 8 key words; shared, never modified
 * @param flags the mode's domain flags
 */
@SuppressWarnings("ArrayRecordComponent") // never modified once made, and never compared
public record Blake3Mode(int[] key, int flags) {

  /** Plain hash mode: the IV as key, no domain flag. */
  static Blake3Mode hash() {
    return new Blake3Mode(Blake3Compression.iv(), 0);
  }
}
