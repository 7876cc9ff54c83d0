package org.meshjava.jcp;

import java.util.Objects;
import org.meshjava.core.ContentId;

/**
 * A grant's id: the BLAKE3 content id of its {@link SignedGrant}'s canonical encoding, signature
 * included, so the id names exactly the signed object a chain links to and a receipt debits. On the
 * wire it is 64 lowercase hex digits (§6.1 {@code grant_id}). Immutable and thread-safe.
 *
 * @param contentId the 32-byte digest
 */
public record GrantId(ContentId contentId) implements Comparable<GrantId> {

  /** Validates the id. */
  public GrantId {
    Objects.requireNonNull(contentId, "contentId");
  }

  /**
   * Parses 64 lowercase hex digits.
   *
   * @throws IllegalArgumentException if the text is not exactly that
   */
  public static GrantId fromHex(String hex) {
    return new GrantId(ContentId.fromHex(hex));
  }

  /** Returns the 64-digit lowercase hex form. */
  public String hex() {
    return contentId.hex();
  }

  @Override
  public int compareTo(GrantId o) {
    return contentId.compareTo(o.contentId);
  }

  @Override
  public String toString() {
    return contentId.hex();
  }
}
