package org.meshjava.steward;

import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Energy;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.WeightsBinding;
import org.meshjava.jcp.Authorisation;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.MappedReadFault;
import org.meshjava.journal.Unresolved;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.router.AdmissionRule;
import org.meshjava.steward.observe.StewardListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steward's grant phases (§2 phase 2 and the debit of phase 3), journalled (§2.2).
 *
 * <p>Design note. A decision and its journal record are made under one lock, and so are a debit and
 * its record, so the journal's order is exactly the order the gate saw: replaying the journal then
 * rebuilds the same ledger. Waiting for the record to reach storage happens outside the lock, so
 * concurrent serves share the journal's syncs.
 *
 * <p>Thread-safe.
 */
final class Authoriser {
  private static final Logger LOG = LoggerFactory.getLogger(Authoriser.class);

  private final Gate gate;
  private final Journal journal;
  private final InstantSource clock;
  private final Object order = new Object();
  private final AtomicReference<String> suspension = new AtomicReference<>();
  private final List<Unresolved> unresolved;
  private final @Nullable StewardListener listener;
  private final GrantSpend spend;
  private final Runnable heldFaults;

  /**
   * @param heldFaults run last in the gate's guarded decision: it throws any fault of a read of a
   *     mapped snapshot that compiled code held back ({@link MappedReadFault#deliverPending}; a
   *     test's stand-in otherwise)
   */
  Authoriser(
      Gate gate,
      Journal journal,
      InstantSource clock,
      List<Unresolved> unresolved,
      Optional<String> suspended,
      @Nullable StewardListener listener,
      Runnable heldFaults) {
    this.heldFaults = heldFaults;
    this.listener = listener;
    this.gate = gate;
    this.spend = new GrantSpend(gate);
    this.journal = journal;
    this.clock = clock;
    this.unresolved = new CopyOnWriteArrayList<>(unresolved);
    suspended.ifPresent(suspension::set);
  }

  /** A decision made and recorded. */
  record Authorised(Authorisation authorisation, long journalSeq) {}

  /**
   * The admission rule a presentation's chain imposes on routing: its {@code ModelIn} caveats (§2).
   */
  static AdmissionRule admission(Presentation presentation) {
    return backend -> {
      Optional<ContentId> model = backend.weights().map(WeightsBinding::digest);
      if (presentation.chain().admitsModel(model)) {
        return Optional.empty();
      }
      return Optional.of(
          model.isEmpty()
              ? "names no weights, and the grant's ModelIn admits only named weights"
              : "weights " + model.get() + " are not in the grant's ModelIn");
    };
  }

  /**
   * Makes the checks of the decision that need neither the backend nor the lock that orders the
   * journal, so a steward makes them before a serve takes a backend's slot: first those that read
   * no state ({@link Gate#verifyPresentation}: the caller of {@code presentation} is the leaf's
   * issuer and signed for this request (§2.1), every link of the chain is signed by its issuer,
   * linked to its parent and attenuated, its caveats are of known kinds, and its leaf is held by
   * this steward); then, at a reading of the decision clock, each link's window, revocation, action
   * and resource, and whether every link's whole budget covers the ceiling ({@link Gate#screen}). A
   * chain valid in itself that the decision would refuse for its time, its action or its size (a
   * holder's self-delegation with a budget of 0 or an expiry past) is then refused here, holding no
   * slot. {@link #authorise} makes every check again, under the lock, at the time it records, and
   * decides the rest (the spent presentation, what the links have left).
   *
   * <p>While grants are suspended, or when the clock reads a time no journal record can carry, only
   * the first checks are made: {@link #authorise} refuses such a serve as it always did ({@code
   * GrantsSuspendedException}, {@code NOT_RECORDED}), rather than with a label read off a clock it
   * would not decide by. Records nothing.
   *
   * @throws NotIssuerException when the caller is not authenticated
   * @throws GrantDeniedException when the chain is refused, with the label the decision would give
   *     it at this reading of the clock
   */
  void authenticate(Presentation presentation, IdentifiedRequest identified) throws ServeException {
    try {
      Instant now = decisionTime();
      if (suspension.get() == null && recordable(now)) {
        gate.screen(presentation, identified, now);
      } else {
        gate.verifyPresentation(presentation, identified.id());
      }
    } catch (GrantRefusedException e) {
      throw refusal(e);
    }
  }

  /** A reading of the clock as a decision takes it: to the millisecond its record holds. */
  private Instant decisionTime() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  /** Whether a journal record can carry {@code t} as its decision time. */
  private static boolean recordable(Instant t) {
    return !t.isBefore(JournalEntry.Authorised.EARLIEST)
        && !t.isAfter(JournalEntry.Authorised.LATEST);
  }

  /** A gate's refusal as the steward's: the caller's own failure (401) or a denial (403). */
  private static ServeException refusal(GrantRefusedException e) {
    if (e.callerNotAuthenticated()) {
      return new NotIssuerException(e.label(), e.reason(), e);
    }
    return new GrantDeniedException(e.label(), e.reason(), e);
  }

  /**
   * Decides and records a grant for a serve on the backend registered as {@code backend}, over the
   * weights binding the steward read from it for this serve ({@code weights}), which the serve must
   * keep (§2). The presentation has been {@linkplain #authenticate authenticated} first, caller and
   * chain, outside the lock that orders the journal (the steward does so before the serve takes its
   * slot): the caller's signature is a third of a granted serve's CPU (mesh-bench/README.md,
   * session 44), and a chain's signatures cost one more each; under the lock concurrent serves
   * verified them one at a time, and a forged presentation or chain waited there behind every other
   * serve's journal write, holding its backend slot. The gate's own first checks then cost nothing,
   * as the presentation remembers the request it verified and the gate the chain; the checks that
   * depend on the decision's time or on state (window, revocation, spent presentation, budget) are
   * made here, under the lock, at the time recorded, whatever the screen made of them earlier at
   * its own reading of the clock.
   *
   * @return the serve's hold on the grant, which the serve settles exactly once
   */
  Settlement authorise(
      Presentation presentation,
      IdentifiedRequest identified,
      String backend,
      Optional<WeightsBinding> weights)
      throws ServeException {
    refuseIfSuspended(); // early, before the clock; checked again under the lock, where it holds
    Optional<ContentId> model = weights.map(WeightsBinding::digest);
    Instant now = decisionTime();
    if (!recordable(now)) {
      // Checked before the gate reserves anything: a decision the journal cannot record must not
      // be made at all (a clock at Instant.MAX, say, would otherwise reach the journal's encoder
      // and fail there, leaking the reservation and breaking the journal's chain).
      throw new ServeException(
          ServeException.Reason.NOT_RECORDED,
          "the steward's clock reads "
              + now
              + ", which a journal record cannot carry (decided_at_ms covers "
              + JournalEntry.Authorised.EARLIEST
              + " to "
              + JournalEntry.Authorised.LATEST
              + "); no grant was decided. Set the clock right and present again");
    }
    Authorisation auth;
    Journal.Pending pending;
    synchronized (order) {
      // Under the lock that orders the journal: a suspension recorded while this serve was on its
      // way here must refuse it, or its decision would be journalled after the Suspended record.
      refuseIfSuspended();
      @Nullable Authorisation decided = null;
      try {
        try {
          decided = gate.decide(presentation, identified, model, now);
          auth = decided;
        } finally {
          // Compiled code may throw a read's fault only at a later poll, past the catch below,
          // after a decision or a refusal made of the garbage the read gave: neither may stand,
          // so the fault is thrown here, over either.
          heldFaults.run();
        }
      } catch (GrantRefusedException e) {
        throw refusal(e);
      } catch (InternalError e) {
        if (decided != null) {
          // A decision made of the garbage before its fault surfaced: what it reserved is let go,
          // so nothing of the refused presentation stays held.
          gate.release(decided);
        }
        if (!MappedReadFault.in(e)) {
          throw e;
        }
        throw snapshotCutShort(e);
      }
      try {
        pending =
            journal.enqueue(
                new JournalEntry.Authorised(presentation, identified, model, backend, now));
      } catch (JournalException e) {
        gate.release(auth);
        throw notRecorded("the authorisation", e);
      } catch (RuntimeException | Error e) {
        // Unlike a JournalException, an unchecked throw (an implementation's bug, the heap running
        // out, a decorator throwing after its inner journal queued the record) does not say the
        // record was left unqueued. A queued Authorised record with no Debited after it is replayed
        // as a hold of the whole ceiling, so the hold stays: released, this process would decide
        // the ceiling again on a grant near its end, and a replay refuses that decision. A hold
        // the journal lacks only leaves the grant short until a restart. It is listed unresolved
        // (its record's number unknown), so an operator sees why the grant is short.
        keptUnresolved(auth, backend, e);
        throw e;
      }
    }
    try {
      // Through interrupts: an interrupted await leaves the record queued, to be written later,
      // and releasing the hold then would leave this process's ledger short of what a replay
      // rebuilds. Waiting settles whether the decision is on storage (JournalIo's design note).
      pending.awaitUninterruptibly();
    } catch (JournalException e) {
      // The journal has failed; the decision is not on storage, so no work may follow it.
      gate.release(auth);
      throw notRecorded("the authorisation", e);
    } catch (RuntimeException | Error e) {
      // A decorator's wait that throws unchecked says neither durable nor unwritten, as a throw
      // once the record may be queued (above): no work follows, the hold stays, and it is listed
      // unresolved so an operator sees why the grant is short.
      keptUnresolved(auth, backend, e);
      throw e;
    }
    return Settlement.granted(
        this, new Authorised(auth, pending.record().seq()), identified.request());
  }

  /**
   * Debits the metered joules on every link (§2 phase 3) and records it. Only a {@link Settlement}
   * calls this, once per serve.
   *
   * @param awaitDurable whether to wait for the record to reach storage. A serve that goes on to
   *     seal need not: its {@code Sealed} record comes later in the same journal, and waiting for
   *     that one covers this one too (durability is in record order), which saves a sync per serve.
   */
  DebitResult debit(Authorised a, Energy energy, long debitUj, boolean awaitDurable)
      throws ServeException {
    DebitResult result;
    Journal.Pending pending;
    synchronized (order) {
      result = gate.debit(a.authorisation(), debitUj);
      try {
        pending =
            journal.enqueue(
                new JournalEntry.Debited(
                    a.journalSeq(), energy, debitUj, result.breach().map(DenialLabel::wire)));
      } catch (JournalException e) {
        throw notRecorded("the debit", e);
      } catch (RuntimeException | Error e) {
        // The gate has debited and released the hold, but the journal kept no Debited record, so
        // a replay holds this serve's whole ceiling: a grant this process goes on deciding over
        // its smaller spend would have decisions journalled that the replay refuses, and the
        // steward would not start again. Grants stop here, as after a failed journal; unrecorded,
        // since the journal just failed, so a restart replays it and honours them again.
        debitUnrecorded(e);
        throw e;
      }
    }
    if (awaitDurable) {
      try {
        pending.awaitUninterruptibly();
      } catch (JournalException e) {
        throw notRecorded("the debit", e);
      } catch (RuntimeException | Error e) {
        // A decorator's wait that throws unchecked leaves the Debited record's fate unknown: as
        // unsure as a throw while queueing it (above), so grants stop the same way.
        debitUnrecorded(e);
        throw e;
      }
    }
    result
        .breach()
        .ifPresent(b -> LOG.info("grant {} breached on debit: {}", result.grantId(), b.wire()));
    if (listener != null) {
      GuardedListener.afterTheWork("debited", () -> listener.debited(result));
    }
    return result;
  }

  /**
   * Stops honouring grants in this process once the journal threw unchecked on a {@code Debited}
   * record ({@link #debit}): this process has spent what the journal may not show.
   */
  private void debitUnrecorded(Throwable e) {
    if (suspension.compareAndSet(
        null,
        "the journal failed on a debit ("
            + FailureWords.of(e)
            + "); this process has spent more than its journal shows, so grants are refused"
            + " until a restart replays the journal")) {
      LOG.error("no longer honouring grants: {}", suspension.get());
    }
  }

  /**
   * Stops honouring grants from now on, for the reason given (§2.2), and journals the suspension so
   * a restart keeps it. The suspension takes effect first: if the record cannot be written (the
   * journal has failed), grants stay refused in this process, and no later record can be written
   * either.
   *
   * @param record the {@link JournalEntry.Suspended} or {@link JournalEntry.SuspendedByCheckpoint}
   *     record carrying the evidence
   */
  void suspend(String reason, JournalEntry record) {
    if (!(record instanceof JournalEntry.Suspended
        || record instanceof JournalEntry.SuspendedByCheckpoint)) {
      throw new IllegalArgumentException("not a suspension: " + record);
    }
    try {
      Journal.Pending pending;
      // Set and queued under the decision lock, as a revocation is: every decision is journalled
      // on the side of the Suspended record it was made on, and none made after it is admitted.
      synchronized (order) {
        if (!suspension.compareAndSet(null, reason)) {
          return;
        }
        LOG.error("no longer honouring grants: {}", reason);
        pending = journal.enqueue(record);
      }
      pending.awaitUninterruptibly();
    } catch (JournalException e) {
      LOG.error("the suspension could not be journalled; grants stay refused in this process", e);
    }
  }

  /**
   * Stops honouring grants after the gate faulted reading its spend where a snapshot file mapped
   * into memory holds it (a steward restarted from that snapshot reads its spent presentations in
   * place, SPEC.md §60.9), because the file was cut short under it ({@code cp} or a download over
   * it, {@code truncate}). The interpreted gate throws before it decides anything; compiled, it may
   * decide over the garbage the faulting read gave before the fault is thrown (at the end of the
   * guarded call, {@link MappedReadFault#deliverPending}), and what it held for that decision is
   * never journalled. Either way nothing of this serve is journalled or spent; but which
   * presentations were spent can no longer be read, so no grant can be decided until a restart. Not
   * journalled: the journal is whole, and a restart without the cut file replays it.
   */
  private GrantsSuspendedException snapshotCutShort(InternalError fault) {
    String why =
        "the journal snapshot this steward restarted from, whose spent presentations it reads in"
            + " place, was cut short while the steward ran (something rewrote the file in place: "
            + fault.getMessage()
            + "), so no spend can be decided; grants are refused until a restart. Put the whole"
            + " file back, or remove the cut one so that the restart replays the journal (a"
            + " snapshot is replaced by writing a new file and renaming it over, never in place)";
    if (suspension.compareAndSet(null, why)) {
      LOG.error("no longer honouring grants: {}", why);
    }
    return new GrantsSuspendedException(java.util.Objects.requireNonNull(suspension.get()), fault);
  }

  private void refuseIfSuspended() throws GrantsSuspendedException {
    String suspended = suspension.get();
    if (suspended != null) {
      throw new GrantsSuspendedException(suspended);
    }
  }

  /**
   * Records {@code revocation} (already verified) and adds it to the gate's revocations (SPEC.md 30
   * §11).
   *
   * <p>Design note. Record and effect are made under the decision lock, so every decision is
   * recorded on the same side of the {@code Revoked} record as it was decided: replay, which
   * applies records in order, then decides exactly as the steward did. The caller is answered only
   * once the record is durable; a decision taken after the revocation is recorded after it, and
   * durability is in record order, so no such decision outlives a revocation that was lost.
   *
   * @return false when the grant was already revoked from that time or earlier (nothing recorded)
   * @throws ServeException {@code NOT_RECORDED} if the journal cannot record it
   */
  boolean revoke(Revocation revocation) throws ServeException {
    Journal.Pending pending;
    synchronized (order) {
      Optional<Instant> current = gate.revocations().revokedFrom(revocation.grantId());
      if (current.isPresent() && !current.get().isAfter(revocation.from())) {
        return false;
      }
      try {
        pending = journal.enqueue(new JournalEntry.Revoked(revocation));
      } catch (JournalException e) {
        throw notRecorded("the revocation", e);
      } catch (RuntimeException | Error e) {
        // Unlike a JournalException, an unchecked throw does not say the record was not queued (a
        // decorator may throw after its inner journal queued it). Taking effect here all the same
        // errs on the safe side: a replay that meets the record refuses every decision journalled
        // after it on the revoked grant, and a revocation in force here that the journal lacks
        // only refuses until a restart. The caller is told it failed, and may send it again.
        gate.revocations().revoke(revocation.grantId(), revocation.from());
        throw e;
      }
      gate.revocations().revoke(revocation.grantId(), revocation.from());
    }
    try {
      // Through interrupts: the revocation already refuses decisions here, so the caller must
      // learn whether it is on storage, not that the wait was cut short.
      pending.awaitUninterruptibly();
    } catch (JournalException e) {
      throw notRecorded("the revocation", e);
    }
    LOG.warn(
        "grant {} revoked from {} by {}",
        revocation.grantId(),
        revocation.from(),
        revocation.revoker());
    return true;
  }

  Optional<String> suspension() {
    return Optional.ofNullable(suspension.get());
  }

  /**
   * Lists a hold kept after the journal threw unchecked on its {@code Authorised} record, with
   * {@link Unresolved#UNKNOWN_RECORD}: whether the record was queued is unknown until a restart,
   * which lists it by its number if it reached the journal and drops it if not. A failure to list
   * it (the heap gone) is added to the throw the caller gets, never put in its place.
   */
  private void keptUnresolved(Authorisation auth, String backend, Throwable thrown) {
    try {
      unresolved.add(
          new Unresolved(
              Unresolved.UNKNOWN_RECORD,
              auth.presentation().caller(),
              backend,
              auth.requestId(),
              auth.grantId(),
              auth.ceilingUj(),
              auth.decisionTime()));
    } catch (RuntimeException | Error listing) {
      thrown.addSuppressed(listing);
    }
  }

  List<Unresolved> unresolved() {
    return List.copyOf(unresolved);
  }

  /** A read-only view of the gate's spend. */
  GrantSpend spend() {
    return spend;
  }

  private static ServeException notRecorded(String what, JournalException e) {
    return new ServeException(
        ServeException.Reason.NOT_RECORDED,
        what + " could not be journalled: " + e.getMessage(),
        e);
  }
}
