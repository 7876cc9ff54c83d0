package org.meshjava.journal.internal;

import java.util.Objects;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;

/**
 * A grant chain with its id in the journal (BLAKE3 of its canonical encoding), hashed here and only
 * here, so that an id handed on beside a chain is always that chain's: {@link RecordChain} hashes
 * an authorisation's chain once to decide whether a {@code Chain} record comes first, and {@link
 * RecordCodec#encode(org.meshjava.journal.JournalRecord, IdentifiedChain)} writes the same id in
 * that record and in the {@code Authorised} one without hashing the chain again.
 *
 * <p>The encoder uses the id only for a record whose chain equals this one (in {@link RecordChain}
 * the very same object, which {@code equals} answers without comparing the links); a record naming
 * any other chain has its own hashed, so a caller cannot write one chain's id into another's
 * record. Immutable and thread-safe.
 */
public final class IdentifiedChain {
  private final GrantChain chain;
  private final ContentId id;

  private IdentifiedChain(GrantChain chain) {
    this.chain = chain;
    this.id = ContentId.ofBytes(chain.encode());
  }

  /** Hashes {@code chain}'s encoding for its id. */
  public static IdentifiedChain of(GrantChain chain) {
    return new IdentifiedChain(Objects.requireNonNull(chain, "chain"));
  }

  /** The chain. */
  public GrantChain chain() {
    return chain;
  }

  /** Its id: BLAKE3 of {@code chain().encode()}. */
  public ContentId id() {
    return id;
  }

  /**
   * The id of {@code other}: this one's when {@code other} is this chain, else {@code other}'s
   * encoding hashed.
   */
  ContentId idOf(GrantChain other) {
    return other.equals(chain) ? id : ContentId.ofBytes(other.encode());
  }
}
