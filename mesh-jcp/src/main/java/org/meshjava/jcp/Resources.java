package org.meshjava.jcp;

import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.meshjava.core.ContentId;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;

/**
 * The resources a grant permits: every request ({@link All}), or only requests with the listed
 * content ids ({@link Only}). Exactly one of the two, hence a sealed type. Immutable.
 *
 * <p>Wire form: the text {@code "*"} for all, or a non-empty array of request ids as lowercase hex
 * text in ascending order without duplicates.
 */
public sealed interface Resources {

  /** Returns {@link All}. */
  static Resources all() {
    return All.INSTANCE;
  }

  /** Returns {@link Only} the given request ids. */
  static Resources only(Set<ContentId> requestIds) {
    return new Only(requestIds);
  }

  /** Whether a request with this id is permitted. */
  boolean permits(ContentId requestId);

  /** Whether this is no wider than {@code parent} (attenuation). */
  boolean isWithin(Resources parent);

  /** Returns the wire form's canonical CBOR encoding. */
  default byte[] encode() {
    return Grant.resourcesCbor(this).encode();
  }

  /** Every request. */
  enum All implements Resources {
    /** The only instance. */
    INSTANCE;

    @Override
    public boolean permits(ContentId requestId) {
      return true;
    }

    @Override
    public boolean isWithin(Resources parent) {
      return parent instanceof All;
    }

    CborValue toCbor() {
      return new CborText("*");
    }

    @Override
    public String toString() {
      return "*";
    }
  }

  /**
   * Only the listed request ids.
   *
   * @param requestIds a non-empty set, copied and held in ascending order
   */
  record Only(Set<ContentId> requestIds) implements Resources {
    /** Validates and copies the set into ascending order. */
    public Only {
      Objects.requireNonNull(requestIds, "requestIds");
      if (requestIds.isEmpty()) {
        throw new IllegalArgumentException("a resource list names at least one request id");
      }
      requestIds = Collections.unmodifiableSortedSet(new TreeSet<>(List.copyOf(requestIds)));
    }

    @Override
    public boolean permits(ContentId requestId) {
      return requestIds.contains(requestId);
    }

    @Override
    public boolean isWithin(Resources parent) {
      return switch (parent) {
        case All a -> true;
        case Only o -> o.requestIds.containsAll(requestIds);
      };
    }

    CborValue toCbor() {
      // Equal-length lowercase hex texts sort bytewise exactly as the digests do.
      List<CborValue> items =
          requestIds.stream().<CborValue>map(id -> new CborText(id.hex())).toList();
      return new CborArray(items);
    }
  }
}
