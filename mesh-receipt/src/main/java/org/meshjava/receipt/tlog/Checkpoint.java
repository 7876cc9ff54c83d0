package org.meshjava.receipt.tlog;

import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;

/**
 * A C2SP {@code tlog-checkpoint}: the log's origin, its tree size and its root, as the body of a
 * signed note. The body is exactly {@code origin\nsize\nbase64(root)\n}; we write no extension
 * lines and refuse bodies that carry some.
 *
 * <p>A steward's origin (and its note key's name) is its did:key text, {@code did:key:z6Mk…}:
 * stable for as long as the key is, unique to it, and free of the spaces and {@code +} a note name
 * may not hold.
 *
 * <p>Immutable and thread-safe.
 *
 * @param origin the log's origin line
 * @param size the number of leaves
 * @param root the tree's root at that size
 */
public record Checkpoint(String origin, long size, TreeHash root) {
  /**
   * Validates the origin and the size.
   *
   * @throws IllegalArgumentException if the origin is not a valid note key name (empty, or holding
   *     white space, {@code +} or a lone surrogate), or the size is negative
   */
  public Checkpoint {
    if (!NoteVerifierKey.isValidName(origin)) {
      throw new IllegalArgumentException("an origin is non-empty, without white space or '+'");
    }
    if (size < 0) {
      throw new IllegalArgumentException("a tree size is not negative");
    }
  }

  /** Returns the origin of the log a steward with identity {@code steward} keeps. */
  public static String originOf(DidKey steward) {
    return steward.value();
  }

  /** Returns the note key that signs the log of a steward with identity {@code steward}. */
  public static NoteVerifierKey logKey(DidKey steward) {
    return new NoteVerifierKey(originOf(steward), steward.verificationKey());
  }

  /**
   * Returns the checkpoint body: origin, decimal size and base64 root, each ending in a newline.
   */
  public String body() {
    return origin + "\n" + size + "\n" + root.base64() + "\n";
  }

  /**
   * Signs the body with {@code key} under the key name {@code origin}: the note {@link #open}s
   * against {@code new NoteVerifierKey(origin, key.verificationKey())}, which for a steward's log
   * is {@link #logKey}. A witness cosigns the same body with {@link SignedNote#sign} under its own
   * name and adds its line with {@link SignedNote#with}.
   */
  public SignedNote sign(SigningKey key) {
    return SignedNote.sign(body(), origin, key);
  }

  /**
   * Parses a checkpoint body.
   *
   * @throws LogException {@code MALFORMED_CHECKPOINT} when it is not one
   */
  public static Checkpoint parse(String body) throws LogException {
    String[] lines = body.split("\n", -1);
    if (lines.length != 4 || !lines[3].isEmpty()) {
      throw malformed("expected exactly origin, size and root lines");
    }
    // Any length of digits passes here, so a size past 2^63-1 is called too large below rather
    // than said to have leading zeros.
    if (!lines[1].matches("0|[1-9][0-9]*")) {
      throw malformed("the size is not a decimal without leading zeros");
    }
    byte[] root;
    try {
      root = StandardBase64.decode(lines[2]);
    } catch (IllegalArgumentException e) {
      throw malformed("the root is not the canonical base64 of 32 bytes");
    }
    if (root.length != TreeHash.LENGTH) {
      throw malformed("the root is not the canonical base64 of 32 bytes");
    }
    if (!NoteVerifierKey.isValidName(lines[0])) {
      throw malformed("the origin holds white space or '+'");
    }
    long size;
    try {
      size = Long.parseLong(lines[1]);
    } catch (NumberFormatException e) {
      throw malformed(
          "the size is too large; the largest accepted is " + Long.MAX_VALUE + " (2^63-1)");
    }
    return new Checkpoint(lines[0], size, TreeHash.of(root));
  }

  /**
   * Opens a signed checkpoint: verifies the log key's signature and parses the body, checking that
   * its origin is the key's name.
   *
   * @throws LogException when the note is malformed, unsigned by {@code logKey} or its body is not
   *     a checkpoint of that log
   */
  public static Checkpoint open(SignedNote note, NoteVerifierKey logKey) throws LogException {
    note.verify(logKey);
    Checkpoint checkpoint = parse(note.text());
    if (!checkpoint.origin().equals(logKey.name())) {
      throw malformed("the origin " + checkpoint.origin() + " is not the log " + logKey.name());
    }
    return checkpoint;
  }

  private static LogException malformed(String detail) {
    return new LogException(LogException.Reason.MALFORMED_CHECKPOINT, detail);
  }
}
