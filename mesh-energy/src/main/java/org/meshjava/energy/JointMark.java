package org.meshjava.energy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The liveness mark of a domain read as a sum of several counters (the dies of a package): it moves
 * only once every part has moved since it last did. The sum itself advances when any one part does,
 * so judged on the sum a frozen part would hide behind a live one, and a figure over the domain
 * would claim what the frozen part reads (§3.3). Parts are known by name from the first read that
 * names them. Not thread-safe; its channel's reads are serialised by the meter.
 */
final class JointMark {
  private final Map<String, Boolean> movedSinceMark = new LinkedHashMap<>();
  private long mark;

  /** Notes one part as read, and whether it moved since its previous read. */
  void saw(String part, boolean moved) {
    movedSinceMark.merge(part, moved, Boolean::logicalOr);
  }

  /** Ends one read of every part: the mark moves if each part seen so far has moved. */
  void endRead() {
    if (!movedSinceMark.isEmpty() && !movedSinceMark.containsValue(false)) {
      mark++;
      movedSinceMark.replaceAll((part, moved) -> false);
    }
  }

  long mark() {
    return mark;
  }
}
