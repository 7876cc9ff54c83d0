package org.meshjava.openai;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.Unsigned;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.Presentation;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.ServeResult;

/**
 * What the operator console shows that the steward itself does not keep: the receipts this server
 * handed out lately, the grants they were served on, and each backend's running totals.
 *
 * <p><b>Bounded.</b> The receipts are a ring of the last {@link #RECEIPTS} (the oldest is dropped);
 * the grants are the {@link #GRANTS} most recently served on (the least recently served is
 * dropped); the totals hold one entry per backend, and backends are fixed when the steward is
 * built. Spend is not copied here: the grants endpoint reads it live from the steward's ledger.
 *
 * <p>Only sealed serves are fed in, so a grant appears here only after its chain was verified and
 * debited; a forged presentation never reaches the console's grant table.
 *
 * <p>Thread-safe: serves feed it concurrently, one short lock per serve.
 */
final class ConsoleFeed {
  /** How many receipts the ring keeps. */
  static final int RECEIPTS = 256;

  /** How many grants the table keeps. */
  static final int GRANTS = 64;

  /**
   * One receipt as the console shows it.
   *
   * @param atMillis when this server had it sealed (the steward's clock, epoch milliseconds)
   * @param receipt the receipt
   * @param envelopeId the content id of its envelope, hex
   */
  record Served(long atMillis, MeshReceipt receipt, String envelopeId) {
    Served {
      Objects.requireNonNull(receipt, "receipt");
      Objects.requireNonNull(envelopeId, "envelopeId");
    }
  }

  /**
   * A backend's totals since this server started.
   *
   * @param backend the backend's name
   * @param serves how many receipts it sealed
   * @param energyUj the µJ those receipts carry
   */
  record Totals(String backend, long serves, long energyUj) {
    Totals {
      Objects.requireNonNull(backend, "backend");
    }
  }

  private final Object lock = new Object();
  private final ArrayDeque<Served> ring = new ArrayDeque<>(RECEIPTS);
  private final Map<GrantId, GrantChain> grants = new LinkedHashMap<>(GRANTS, 0.75f, true);
  private final Map<String, long[]> totals = new LinkedHashMap<>();

  /** Feeds one sealed serve, and the presentation it rode on, if any. */
  void served(long atMillis, ServeResult result, Optional<Presentation> presentation) {
    MeshReceipt r = result.receipt();
    Served s = new Served(atMillis, r, result.envelope().id().hex());
    synchronized (lock) {
      if (ring.size() == RECEIPTS) {
        ring.removeFirst();
      }
      ring.addLast(s);
      long[] t = totals.computeIfAbsent(r.backend(), b -> new long[2]);
      t[0]++;
      t[1] = Unsigned.saturatingAdd(t[1], r.energy().uj());
      if (presentation.isPresent() && r.grantId().isPresent()) {
        GrantChain chain = presentation.get().chain();
        grants.put(chain.leaf().id(), chain);
        if (grants.size() > GRANTS) {
          GrantId eldest = grants.keySet().iterator().next();
          grants.remove(eldest);
        }
      }
    }
  }

  /** Up to {@code limit} receipts with a sequence above {@code after} (or all), newest first. */
  List<Served> recent(int limit, Optional<Long> after) {
    List<Served> out = new ArrayList<>(Math.min(limit, RECEIPTS));
    synchronized (lock) {
      var it = ring.descendingIterator();
      while (it.hasNext() && out.size() < limit) {
        Served s = it.next();
        if (after.isPresent() && s.receipt().sequence() <= after.get()) {
          continue;
        }
        out.add(s);
      }
    }
    return out;
  }

  /** The grants most recently served on, most recent first. */
  List<GrantChain> grants() {
    synchronized (lock) {
      List<GrantChain> out = new ArrayList<>(grants.values());
      java.util.Collections.reverse(out);
      return out;
    }
  }

  /** Each backend's totals, in the order they first served. */
  List<Totals> totals() {
    synchronized (lock) {
      List<Totals> out = new ArrayList<>(totals.size());
      totals.forEach((b, t) -> out.add(new Totals(b, t[0], t[1])));
      return out;
    }
  }
}
