package org.meshjava.steward;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.NonceSource;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.jcp.DebitResult;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.FidelityReport;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.Nonce;
import org.meshjava.receipt.Opening;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.receipt.internal.ReceiptLog;
import org.meshjava.router.RouteDecision;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seal phase (§2 phase 4): drafts the receipt of a metered, settled serve, stamps and signs it
 * into the chain ({@link ReceiptLog}), journals it before it is handed out (§2.2), and appends its
 * leaf to the transparency log in chain order.
 *
 * <p>Thread-safe: the chain's stamp-and-sign step is serialised by the log; the wait for the
 * journal's sync happens outside it, so concurrent serves share syncs.
 */
final class Sealer {
  private static final Logger LOG = LoggerFactory.getLogger(Sealer.class);

  private static final String CHAIN_UNKNOWN =
      "a receipt's journal record may have been queued although recording it failed, so where the"
          + " receipt chain stands is unknown; no receipt is sealed until the steward is restarted"
          + " on its journal";

  private final Opening.Key openingKey;
  private final NonceSource nonces;
  private final ReceiptLog log;
  private final Journal journal;
  private final LogKeeper logKeeper;
  private final Optional<Snapshotter> snapshotter;
  private final Runnable heldFaults;

  /**
   * Why no receipt is sealed any more, once recording one failed unchecked: a {@code
   * JournalException} from {@code enqueue} says nothing was queued, but an unchecked throw (a
   * journal decorator's bug after its inner journal queued the record, the heap running out once it
   * was queued, the log's leaf failing after it) leaves the record's fate unknown while the chain
   * stays where it was. Sealing on would give the next receipt the same number, and a journal
   * holding two receipts of one number is refused at the next start; a restart replays the journal
   * and finds where the chain stands. Set under the chain's lock, so no serve seals after the
   * failing one without seeing it.
   */
  private final AtomicReference<String> chainUnknown = new AtomicReference<>();

  /** Whether the step after a durable seal failed last time it ran ({@link #afterDurable}). */
  private final AtomicBoolean logCadenceFailing = new AtomicBoolean();

  private final AtomicBoolean snapshotCadenceFailing = new AtomicBoolean();

  Sealer(
      Opening.Key openingKey,
      NonceSource nonces,
      ReceiptLog log,
      Journal journal,
      LogKeeper logKeeper,
      Optional<Snapshotter> snapshotter,
      Runnable heldFaults) {
    this.heldFaults = Objects.requireNonNull(heldFaults, "heldFaults");
    this.openingKey = Objects.requireNonNull(openingKey, "openingKey");
    this.nonces = Objects.requireNonNull(nonces, "nonces");
    this.log = Objects.requireNonNull(log, "log");
    this.journal = Objects.requireNonNull(journal, "journal");
    this.logKeeper = Objects.requireNonNull(logKeeper, "logKeeper");
    this.snapshotter = Objects.requireNonNull(snapshotter, "snapshotter");
  }

  /** Where the receipt chain stands. */
  ChainHead head() {
    return log.head();
  }

  /** Why no receipt is sealed until a restart, if recording one failed unchecked. */
  Optional<String> refusal() {
    return Optional.ofNullable(chainUnknown.get());
  }

  /** The opening of the output commitment for a request this steward served (§6.4). */
  Opening opening(ContentId requestId) {
    return openingKey.open(requestId);
  }

  /**
   * Seals a served request.
   *
   * @param prompt the payload the engine was handed, which the output commitment binds
   * @param debit the serve's settled debit, when it rode on a grant
   * @throws ServeException {@code NOT_RECORDED} if the receipt could not be journalled; it is then
   *     not handed out, and the chain does not advance past it
   */
  SealedReceipt seal(
      IdentifiedRequest identified,
      TokenSequence prompt,
      RouteDecision route,
      Metered metered,
      Settlement settlement,
      Optional<DebitResult> debit)
      throws ServeException {
    ServeRequest request = identified.request();
    ServingEngine engine = route.chosen();
    ServeOutcome outcome = metered.result().outcome();
    ContentId requestId = identified.id();
    // The advertised level is the one the router admitted on (§3.2.1), as its candidate recorded
    // it: the engine's fidelity() read again after the work could differ from it.
    Fidelity admitted = route.chosenCandidate().fidelity();
    Optional<FidelityReport> fidelity =
        outcome.deliveredFidelity().map(d -> new FidelityReport(admitted, d));
    boolean met =
        fidelity
            .map(f -> f.delivered().meets(request.fidelityFloor()))
            .orElse(admitted.meets(request.fidelityFloor()));
    Optional<ContentId> commitment =
        request.isDecision()
            ? Optional.empty()
            : Optional.of(
                OutputCommitment.commit(
                    opening(requestId),
                    requestId,
                    OutputCommitment.payloadDigest(prompt),
                    metered.result().tokens()));
    // The engine's code, as its work is: refused as the backend failing, with what was metered
    // debited, never a trace past the serve.
    String recipe =
        EngineAnswer.of(RoutedBackend.of(route, heldFaults), "name its recipe", engine::recipe)
            .name();
    MeshReceipt.Builder draft =
        MeshReceipt.builder()
            .requestId(requestId)
            .grantId(settlement.grantId())
            // As registered and routed: the engine's name() may answer otherwise by now.
            .backend(route.chosenCandidate().backend())
            .recipe(recipe)
            .weights(metered.weights())
            .route(route.justification())
            .counters(outcome.counters())
            .fidelityFloor(request.fidelityFloor())
            .fidelityReport(fidelity)
            .fidelityMet(met)
            .energy(metered.energy())
            .decision(outcome.decision())
            .grantBreach(debit.flatMap(DebitResult::breach))
            .outputCommitment(commitment)
            .nonce(Nonce.of(nonces.next()));
    OptionalLong authorisedAt = settlement.authorisedAt();
    SealedReceipt sealed;
    try {
      ReceiptLog.Appended<Journal.Pending> appended =
          log.append(
              draft,
              s -> {
                refuseIfChainUnknown();
                try {
                  Journal.Pending pending =
                      journal.enqueue(
                          authorisedAt.isPresent()
                              ? JournalEntry.Sealed.granted(
                                  s.receipt().sequence(), s.envelope(), authorisedAt.getAsLong())
                              : new JournalEntry.Sealed(s.receipt().sequence(), s.envelope().id()));
                  // In chain order, like the journal: leaf i is receipt firstSequence + i (§65).
                  logKeeper.append(s.receipt().sequence(), s.envelope().id());
                  return pending;
                } catch (RuntimeException | Error e) {
                  chainUnknown(s.receipt().sequence(), e);
                  throw e;
                }
              });
      // Through interrupts: the receipt is in the chain and its record queued, so it will be
      // written; handing it out beats a refusal that claims nothing was sealed.
      try {
        appended.recorded().awaitUninterruptibly();
      } catch (RuntimeException | Error e) {
        // A decorator's await that throws unchecked says neither written nor failed: the chain has
        // advanced past a receipt whose record may or may not be durable, as after a throw once
        // the record was queued (above), so no receipt is sealed until a restart finds out.
        chainUnknown(appended.sealed().receipt().sequence(), e);
        throw e;
      }
      sealed = appended.sealed();
    } catch (JournalException e) {
      throw new ServeException(
          ServeException.Reason.NOT_RECORDED,
          "the receipt could not be journalled, so it is not handed out: " + e.getMessage(),
          e);
    }
    afterDurable(
        "the transparency log's checkpoint cadence", logCadenceFailing, logKeeper::afterSeal);
    snapshotter.ifPresent(
        snapshots ->
            afterDurable("queuing a journal snapshot", snapshotCadenceFailing, snapshots::maybe));
    return sealed;
  }

  /**
   * Runs {@code step}, one taken once the receipt is journalled durably. The receipt is then the
   * serve's: a refusal from here would tell the caller nothing was sealed while the journal holds
   * it, and a resend would be served and charged again. What such a step does (a checkpoint, a
   * snapshot) is an optimisation a later seal or restart makes up, so whatever it throws is warned
   * of and the receipt handed out; only the JVM failing passes ({@link JvmFailure}). A step that
   * keeps failing is tried at every seal but warned of once, {@code failing} set, until it runs
   * through again (said at INFO), as the log's checkpoint cadence is: a broken journal costs one
   * line, not one per serve.
   */
  private static void afterDurable(String step, AtomicBoolean failing, Runnable run) {
    try {
      run.run();
    } catch (RuntimeException | Error e) {
      JvmFailure.passIfFailing(e);
      if (failing.compareAndSet(false, true)) {
        LOG.warn(
            "{} failed after a receipt was journalled; the receipt is handed out: {} (tried again"
                + " after each seal, said once until it runs through)",
            step,
            ThrowableWords.describe(e));
      } else {
        LOG.debug("{} failed again after a seal: {}", step, ThrowableWords.describe(e));
      }
      return;
    }
    if (failing.compareAndSet(true, false)) {
      LOG.info("{} runs through again after a seal", step);
    }
  }

  /**
   * Refuses to record a receipt once the chain's head is unknown ({@link #chainUnknown}), as the
   * journal refuses a record once it has failed: nothing is queued and the chain stays.
   */
  private void refuseIfChainUnknown() throws JournalException {
    String unknown = chainUnknown.get();
    if (unknown != null) {
      throw new JournalException(JournalException.Reason.FAILED, unknown, null);
    }
  }

  private void chainUnknown(long sequence, Throwable e) {
    // Marked first with words that need no allocation: the throw may be the heap running out.
    if (!chainUnknown.compareAndSet(null, CHAIN_UNKNOWN)) {
      return;
    }
    String why =
        "recording receipt "
            + sequence
            + " failed unchecked ("
            + FailureWords.of(e)
            + "); "
            + CHAIN_UNKNOWN;
    chainUnknown.set(why);
    LOG.error("no longer sealing receipts: {}", why);
  }
}
