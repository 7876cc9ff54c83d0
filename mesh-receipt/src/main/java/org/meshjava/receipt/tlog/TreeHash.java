package org.meshjava.receipt.tlog;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import org.meshjava.core.FixedBytes;

/**
 * A SHA-256 hash in an RFC 9162 Merkle tree: a leaf hash, an interior node hash or a root. {@link
 * #bytes()} copies the 32 bytes out; its {@code toString} is {@link #hex()}. Immutable and
 * thread-safe.
 *
 * <p>Leaves and nodes are hashed with distinct one-byte prefixes (0x00 and 0x01, RFC 9162 §2.1.1)
 * so that no leaf can be passed off as an interior node. SHA-256 rather than our BLAKE3 content
 * ids: existing transparency-log verifiers and witnesses check exactly this construction.
 */
public final class TreeHash extends FixedBytes {
  /** The length of a hash in bytes. */
  public static final int LENGTH = 32;

  private TreeHash(byte[] bytes) {
    super(bytes, LENGTH, "a tree hash");
  }

  /**
   * Wraps 32 bytes as a hash.
   *
   * @throws IllegalArgumentException when {@code bytes} is not 32 bytes long
   */
  public static TreeHash of(byte[] bytes) {
    return new TreeHash(bytes);
  }

  /** Returns the leaf hash of {@code entry}: SHA-256(0x00 || entry). */
  public static TreeHash leaf(byte[] entry) {
    MessageDigest sha = sha256();
    sha.update((byte) 0x00);
    sha.update(entry);
    return new TreeHash(sha.digest());
  }

  /** Returns the interior node hash over two children: SHA-256(0x01 || left || right). */
  public static TreeHash node(TreeHash left, TreeHash right) {
    MessageDigest sha = sha256();
    sha.update((byte) 0x01);
    sha.update(left.unsharedBytes());
    sha.update(right.unsharedBytes());
    return new TreeHash(sha.digest());
  }

  /** Returns the root of the empty tree: SHA-256 of no bytes (RFC 9162 §2.1.1). */
  public static TreeHash empty() {
    return new TreeHash(sha256().digest());
  }

  /** Returns the hash in standard base64 with padding, as checkpoints carry it. */
  public String base64() {
    return Base64.getEncoder().encodeToString(unsharedBytes());
  }

  /**
   * Reads a hash from the text {@link #base64()} writes, and from no other spelling of it: a
   * verifier that took a missing {@code '='} or set unused bits would accept several texts of one
   * proof (SPEC.md 65).
   *
   * @throws IllegalArgumentException when {@code text} is not standard base64 with padding and the
   *     unused bits zero, or not of 32 bytes
   */
  public static TreeHash ofBase64(String text) {
    return new TreeHash(StandardBase64.decode(text));
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
