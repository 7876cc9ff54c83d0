package org.meshjava.steward;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.EnergyDomain;
import org.meshjava.energy.CounterState;
import org.meshjava.energy.CounterStatus;
import org.meshjava.receipt.ChainHead;

/**
 * Whether a steward can take serves right now, and the facts behind it: its journal, whether it
 * honours grants, what its meter can prove, and where its chain stands. Read with {@link
 * Steward#readiness()}; an HTTP binding answers {@code GET /readyz} from it (SPEC.md, "Health"),
 * and a health indicator elsewhere can do the same. An immutable snapshot.
 *
 * @param journal the journal's state
 * @param grants whether grants are honoured, and if not why
 * @param meter the meter and its counters
 * @param head where the receipt chain stands: the next receipt's sequence and the last envelope
 */
public record Readiness(Journal journal, Grants grants, Meter meter, ChainHead head) {
  /** Validates the record. */
  public Readiness {
    Objects.requireNonNull(journal, "journal");
    Objects.requireNonNull(grants, "grants");
    Objects.requireNonNull(meter, "meter");
    Objects.requireNonNull(head, "head");
  }

  /**
   * Whether the steward can seal receipts: its journal takes appends and, if it is durable, holds
   * its lock. Grants refused and a meter that only estimates do not make a steward unready, since
   * ungranted serves with {@code Estimator} figures are still correct serves; they are reported so
   * that an operator sees them.
   */
  public boolean ready() {
    return journal.writable() && (!journal.durable() || journal.locked());
  }

  /**
   * The journal (§2.2).
   *
   * @param description its file or kind
   * @param durable whether its records survive the process
   * @param locked whether it holds an exclusive lock on its storage
   * @param refusesAppends why it takes no more appends, if it does not (closed, a write failed, or
   *     the steward stopped sealing because a receipt's recording failed unchecked)
   */
  public record Journal(
      String description, boolean durable, boolean locked, Optional<String> refusesAppends) {
    /** Validates the record. */
    public Journal {
      Objects.requireNonNull(description, "description");
      Objects.requireNonNull(refusesAppends, "refusesAppends");
    }

    /** Whether it takes appends. */
    public boolean writable() {
      return refusesAppends.isEmpty();
    }
  }

  /**
   * Whether grants are honoured (§2.2).
   *
   * @param refusedBecause why every grant is refused, if they are: the steward was shown a receipt
   *     its journal lacks, or its identity outlives a journal that does not
   */
  public record Grants(Optional<String> refusedBecause) {
    /** Validates the record. */
    public Grants {
      Objects.requireNonNull(refusedBecause, "refusedBecause");
    }

    /** Whether grants are honoured. */
    public boolean honoured() {
      return refusedBecause.isEmpty();
    }
  }

  /**
   * The energy meter (§3.3).
   *
   * @param name the meter's name
   * @param counters every counter it knows with its liveness; for the estimator a discovery fell
   *     back to, every counter that discovery found and why it is not used; empty for a meter given
   *     to the steward that reads none
   */
  public record Meter(String name, List<CounterStatus> counters) {
    /** Validates the record. */
    public Meter {
      Objects.requireNonNull(name, "name");
      counters = List.copyOf(counters);
    }

    /** The domains whose counters are live now: figures on them may be graded {@code HwShunt}. */
    public List<EnergyDomain> liveDomains() {
      return counters.stream()
          .filter(c -> c.state() == CounterState.LIVE)
          .flatMap(c -> c.domain().stream())
          .distinct()
          .toList();
    }

    /** Whether every figure is estimated: no counter is live. */
    public boolean estimatorOnly() {
      return liveDomains().isEmpty();
    }
  }
}
