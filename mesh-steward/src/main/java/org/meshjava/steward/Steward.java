package org.meshjava.steward;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.Energy;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.NonceSource;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.Setting;
import org.meshjava.core.TokenAccounting;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.internal.FirstFailureWins;
import org.meshjava.core.internal.MappedReadFault;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.energy.CounterMeter;
import org.meshjava.energy.DiscoveryOptions;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterDiscovery;
import org.meshjava.energy.MeterLease;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.RecordedReceipt;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotFolderHold;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.Suspension;
import org.meshjava.journal.Unresolved;
import org.meshjava.journal.internal.JournalReplay;
import org.meshjava.journal.internal.ReplayState;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Disclosure;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.Opening;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.receipt.internal.ReceiptLog;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.ConsistencyProof;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.router.AdmissionRule;
import org.meshjava.router.NoAdmissibleBackendException;
import org.meshjava.router.RouteDecision;
import org.meshjava.router.Router;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steward (§2): the endpoint that routes a request, authorises it against a presented grant,
 * meters the engine that serves it, and seals the receipt into its hash chain. {@link #serve} reads
 * as the lifecycle's four phases in order, each delegated to its owner.
 *
 * <p><b>Failures.</b> A failure in any phase throws {@link ServeException} (with {@link
 * NotIssuerException}, {@link GrantDeniedException} and {@link GrantsSuspendedException} for the
 * grant refusals a caller must tell apart); nothing is sealed and the chain does not advance. A
 * refusal before the engine runs does no work. Once the engine has run on a grant, its joules are
 * debited even if sealing is then refused, because the work happened; if the engine itself fails
 * (whatever it throws), the energy metered up to the failure is debited, and the request's whole
 * joule ceiling only when the meter cannot give a figure either.
 *
 * <p><b>Journal.</b> Every grant decision is journalled before its engine runs, every debit after
 * it, and every receipt before it is handed out (§2.2). Building a steward over a journal that
 * already holds records replays them first: spend is re-established, replayed presentations are
 * spent, the chain continues from the last recorded receipt, and serves that were in flight come
 * back as {@link #unresolved()}. The default journal is in memory and survives nothing.
 *
 * <p><b>Meter.</b> Unless a meter is given, the steward discovers at build time which energy
 * counters this machine has and can prove live ({@link MeterDiscovery}), and otherwise grades every
 * figure {@code Estimator}: a receipt never claims more than the machine can show (§3.3). Stewards
 * of one process that discover with equal options share one meter ({@link MeterDiscovery#lease}),
 * so serves overlapping across them are split as serves within one steward are.
 *
 * <p><b>Thread safety.</b> Serves run concurrently. Grant decisions reserve the request's joule
 * ceiling on every link of the chain until the debit settles it, so threads presenting against one
 * grant can never overspend it; only the journal ordering and the final stamp-and-seal step are
 * serialised, so concurrent serves form one unbroken chain; no steward lock is held while an engine
 * runs. Every public method may be called from any thread. Close the steward to release what it
 * owns (its journal's lock, its lease on a discovered meter). The module's README says what each
 * lock covers, what plug-ins must guarantee, and what a close, an interrupt or a hung engine does.
 *
 * <p><b>Observation.</b> Listeners registered with {@link Builder#listener} follow every serve's
 * phases and outcome, every debit and every journal write ({@link StewardListener}); {@link
 * #readiness()} reports the state a health check needs. Neither costs anything without a listener.
 */
public final class Steward implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Steward.class);

  /** Records written between snapshots, by default. */
  public static final long DEFAULT_SNAPSHOT_EVERY = 100_000;

  /**
   * The default of {@link Builder#checkRecordsBeforeSnapshot}: a start from a snapshot that covers
   * at most this many records reads them to check that they still form one chain, tens of
   * milliseconds of parsing.
   */
  public static final long DEFAULT_CHECK_RECORDS_BEFORE_SNAPSHOT = 10_000;

  /** Records replayed per batch at recovery: their signatures are checked in parallel. */
  private static final int RECOVERY_BATCH = 4096;

  private final DidKey identity;
  private final Router router;

  /**
   * Logs for the operator what a backend threw while routed, which its candidate's reason leaves
   * out.
   */
  private final JudgingThrows judgingThrows = new JudgingThrows();

  private final AtomicBoolean closed = new AtomicBoolean();

  /** Counted down once the first {@link #close} is done; later calls wait for it. */
  private final CountDownLatch closeDone = new CountDownLatch(1);

  /** The thread running the first {@link #close}, once it began. */
  private volatile @Nullable Thread closing;

  /**
   * Set by {@link #close} just before it closes the journal: from then on the journal's refusal of
   * appends is the close's doing, where before it is a failure, even while the close waits for
   * serves in flight.
   */
  private volatile boolean journalClosedByClose;

  private final InFlightServes inFlight = new InFlightServes();
  private final Duration closeGrace;
  private final EnergyMeter meter;
  private final Metering metering;
  private final @Nullable MeterLease lease; // held when discovered, so close() releases it
  private final InstantSource clock;
  private final Journal journal;
  private final Journal claimed; // as the builder was given it, before any listener's wrapping
  // The snapshot folder claimed at build (Builder#claimSnapshotFolder), let go at close.
  private final @Nullable SnapshotFolderHold snapshotFolder;
  private final Authoriser authoriser;
  private final Sealer sealer;
  private final BackendSlots slots;
  private final Optional<String> grantsNeedDurableJournal;
  private final LogKeeper logKeeper;
  private final Optional<Snapshotter> snapshotter;
  private final Runnable heldFaults;

  /** How long a serve, or a replay ({@link #replay}), waits for its engine; zero for as long. */
  private final Duration engineDeadline;

  private final @Nullable StewardListener listener;

  private Steward(
      Builder b,
      Router router,
      JournalReplay.Result replayed,
      Gate gate,
      ChainHead head,
      LogKeeper logKeeper,
      Optional<Snapshotter> snapshotter,
      @Nullable MeterLease lease) {
    this.identity = DidKey.of(b.key.verificationKey());
    this.router = router;
    this.slots = new BackendSlots(b.backends);
    this.lease = lease;
    this.meter = lease == null ? Objects.requireNonNull(b.meter, "meter") : lease.meter();
    this.metering =
        new Metering(
            meter,
            EngineDeadline.of(b.engineDeadline, inFlight::onBehalfOfThisThread, b.heldFaults),
            b.heldFaults);
    this.heldFaults = b.heldFaults;
    this.engineDeadline = b.engineDeadline;
    this.clock = b.clock;
    this.listener = b.listeners.isEmpty() ? null : new GuardedListener(b.listeners);
    this.claimed = b.journal;
    this.snapshotFolder = b.snapshotFolder;
    this.closeGrace = b.closeGrace;
    this.journal = listener == null ? b.journal : new TimedJournal(b.journal, listener);
    this.authoriser =
        new Authoriser(
            gate,
            this.journal,
            b.clock,
            replayed.unresolved(),
            replayed.suspension().map(Suspension::toString),
            listener,
            b.heldFaults);
    this.logKeeper = logKeeper;
    this.snapshotter = snapshotter;
    this.sealer =
        new Sealer(
            Opening.Key.of(b.key),
            b.nonces,
            ReceiptLog.resume(b.key, head),
            this.journal,
            logKeeper,
            snapshotter,
            b.heldFaults);
    this.grantsNeedDurableJournal =
        b.ephemeral || b.journal.durable()
            ? Optional.empty()
            : Optional.of(
                "steward "
                    + identity
                    + " has a key that outlives this process, but its journal ("
                    + b.journal.describe()
                    + ") is not durable: a restart would give spent budgets"
                    + " and presentations back, so it honours no grant until it is given a durable"
                    + " journal (§2.2)");
  }

  /**
   * Starts a builder for a steward that seals with {@code key}, a key the application holds and may
   * use again (a key file, say), so the steward's identity may outlive this process. Such a steward
   * honours grants only over a {@linkplain Journal#durable() durable} journal, and starts its
   * receipt chain only where its journal or an explicit {@link Builder#chainHead} says (§2.2,
   * §6.3). The builder builds once: the steward owns the journal it was given.
   *
   * @param key the steward's sealing key; its {@code did:key} is the steward's identity
   * @return a builder with no backend, an in-memory journal and a discovered meter, until told
   *     otherwise
   */
  public static Builder builder(SigningKey key) {
    return new Builder(key, false);
  }

  /**
   * Starts a builder for a steward with an ephemeral identity: a key generated here, which no one
   * else holds and which ends with this one steward. Nothing can outlive it — a grant held by this
   * identity can be presented to no later steward, and its chain has no earlier receipts — so it
   * honours grants over an in-memory journal and starts its chain at 0: the zero-configuration
   * steward. {@link Builder#identity()} names it before it is built, so grants can be issued to it;
   * the builder builds once.
   *
   * @return a builder with no backend, an in-memory journal and a discovered meter, until told
   *     otherwise
   */
  public static Builder ephemeral() {
    return new Builder(SigningKey.generate(), true);
  }

  /** The steward's identity: the did:key of its sealing key, the subject a grant must name. */
  public DidKey identity() {
    return identity;
  }

  /** The backends in registration order. */
  public List<ServingEngine> backends() {
    return router.backends();
  }

  /**
   * The name {@code backend} was registered under, read once when this steward was built: what its
   * routes, receipts and refusals name it and what a request's model is matched against, whatever
   * its {@code name()} answers now (or if it throws).
   *
   * @throws IllegalArgumentException if {@code backend} is not one of {@link #backends()}
   */
  public String backendName(ServingEngine backend) {
    return router.name(backend);
  }

  /**
   * Replays a sealed serve on {@code backend}, one of its {@link #backends()}. Any receipt naming
   * that backend and its recipe can be replayed, whichever steward sealed it: by §6.4 whoever holds
   * the payload and the opening may replay, so the receipt's signature is not checked here (check
   * it with {@code Jcr1.open} against the steward you trust). The re-serve is held to the receipt's
   * backend by the name it was registered under ({@link #backendName}), as the serve was routed and
   * sealed, not by its {@code name()} asked again ({@link Replayer#replay( ReplayInputs,
   * ServingEngine, String)}). The re-serve is bounded by this steward's {@link
   * Builder#engineDeadline}, as a serve is: an engine that has not returned by then is {@link
   * ReplayVerdict.Reason#ENGINE_FAILED}. The re-serve takes a slot on the backend as a serve does
   * ({@link Builder#backend}'s bounds), held until the engine returns even past the deadline: a
   * backend with none free is {@code ENGINE_FAILED}, in the words of a serve's {@code
   * BACKEND_BUSY}. Meters, seals and journals nothing. Thread-safe as far as the engine is.
   *
   * @return exactly one verdict; never throws for a mismatch
   * @throws IllegalArgumentException if {@code backend} is not one of {@link #backends()}
   */
  public ReplayVerdict replay(ReplayInputs serve, ServingEngine backend) {
    String name = backendName(backend);
    RoutedBackend routed = new RoutedBackend(name, backend, heldFaults);
    return Replayer.replay(
        serve, backend, name, engineDeadline, () -> slots.take(routed), heldFaults);
  }

  /**
   * Whether a request may name {@code model} ({@link ServeRequest#model()}): some backend has that
   * name or serves that recipe. A request naming any other model is refused while routing.
   */
  public boolean serves(String model) {
    Objects.requireNonNull(model, "model");
    return router.backends().stream()
        .anyMatch(backend -> ModelRule.names(backend, router.name(backend), model));
  }

  /** Where the receipt chain stands. */
  public ChainHead head() {
    return sealer.head();
  }

  /** The clock decisions are timed by. */
  public InstantSource clock() {
    return clock;
  }

  /** The meter this steward uses. */
  public EnergyMeter meter() {
    return meter;
  }

  /**
   * What meter discovery found, when the steward discovered its meter rather than being given one:
   * found by this steward's build, or by an earlier steward's of this process that discovered with
   * equal options and shares the meter with it.
   */
  public Optional<MeterDiscovery> meterDiscovery() {
    return Optional.ofNullable(lease).map(MeterLease::discovery);
  }

  /**
   * What grants have spent here, read-only: the spend the journal re-established at start, moved
   * since only by serves, each move journalled (§2.2).
   */
  public GrantSpend spend() {
    return authoriser.spend();
  }

  /**
   * Serves that were authorised but never debited when the steward last stopped (§2.2). Each stays
   * debited at its request's joule ceiling and is never retried; an operator settles them.
   */
  public List<Unresolved> unresolved() {
    return authoriser.unresolved();
  }

  /** Why the steward stopped honouring grants, if it has (§2.2). */
  public Optional<String> grantsSuspended() {
    return authoriser.suspension();
  }

  /**
   * Why the steward honours no grant at all, if it does not: its identity outlives the process
   * ({@link #builder(SigningKey)}) but its journal is not durable (§2.2). Ungranted serves go on.
   */
  public Optional<String> grantsNeedDurableJournal() {
    return grantsNeedDurableJournal;
  }

  /**
   * How many engine calls, serves' or replays', overran the {@linkplain Builder#engineDeadline
   * engine deadline} and have not returned yet: their serves have ended (refused {@code
   * ENGINE_FAILED}), and no server counts them in flight, but each still runs in its engine on a
   * thread of its own. An engine holding native memory (an ONNX session) must not be closed while
   * this is above zero. Always zero without a deadline. Thread-safe.
   */
  public int enginesRunningPastDeadline() {
    return slots.stillRunning();
  }

  /**
   * Reports whether this steward can seal receipts now, with its journal's state, whether it
   * honours grants, its meter's counters and its chain head ({@link Readiness}). Cheap enough for a
   * health probe: it reads state and opens nothing. Thread-safe.
   */
  public Readiness readiness() {
    // A discovery that fell back to the estimator still found counters, and says why each is not
    // used: without them here an operator sees an estimator and no reason.
    List<org.meshjava.energy.CounterStatus> counters =
        meter instanceof CounterMeter counting
            ? counting.counters()
            : meterDiscovery().map(MeterDiscovery::counters).orElse(List.of());
    return new Readiness(
        new Readiness.Journal(
            journal.describe(),
            journal.durable(),
            journal.locked(),
            journal.refusesAppends().or(sealer::refusal)),
        new Readiness.Grants(grantsNeedDurableJournal.or(authoriser::suspension)),
        new Readiness.Meter(meter.name(), counters),
        sealer.head());
  }

  /**
   * Serves an ungranted generation on prompt text. The steward routes {@code request} and hands the
   * routed engine its own tokenizer's encoding of the text ({@link ServingEngine#tokenizer()}); the
   * payload comes back in {@link ServeResult#payload()}.
   *
   * @param request the request; its {@code prompt_hash} must address {@code prompt} ({@link
   *     ServeRequest#generation(PromptText, org.meshjava.core.ServeBounds)} makes one)
   * @param prompt the prompt text; never enters the receipt
   * @return the serve's tokens, text, route and sealed receipt; never null
   * @throws ServeException {@link ServeException.Reason#PROMPT_MISMATCH} if the request does not
   *     address the text, and as {@link #serve(ServeRequest, TokenSequence)} otherwise
   * @throws NullPointerException if an argument is null
   */
  public ServeResult serve(ServeRequest request, PromptText prompt) throws ServeException {
    return serve(request, new Ask.Generation(new Ask.Text(prompt)), Optional.empty());
  }

  /**
   * Serves a generation on prompt text on a grant; see the two-argument form and the grant form.
   *
   * @param request the request; its {@code prompt_hash} must address {@code prompt}
   * @param prompt the prompt text; never enters the receipt
   * @param presentation the grant, presented by its issuer for this request (§2.1)
   * @return the serve's tokens, text, route and sealed receipt; never null
   * @throws ServeException as {@link #serve(ServeRequest, PromptText)} and {@link
   *     #serve(ServeRequest, TokenSequence, Presentation)}: its subclasses tell the grant refusals
   *     apart
   */
  public ServeResult serve(ServeRequest request, PromptText prompt, Presentation presentation)
      throws ServeException {
    return serve(request, new Ask.Generation(new Ask.Text(prompt)), Optional.of(presentation));
  }

  /**
   * Serves an ungranted generation on prompt text, streaming: once routed and authorised, {@code
   * streamer} opens the sink the engine hands each token to as it produces it. The sink's {@code
   * false} (a client gone) stops the engine cooperatively; the tokens produced until then are
   * metered, sealed and journalled, and the result holds exactly those. An engine that cannot
   * stream ({@link ServingEngine#streams()}) hands its tokens over when it is done.
   *
   * @throws ServeException as {@link #serve(ServeRequest, PromptText)}; a refusal before the engine
   *     runs opens no sink
   */
  public ServeResult serve(ServeRequest request, PromptText prompt, Streamer streamer)
      throws ServeException {
    return serve(request, new Ask.Generation(new Ask.Text(prompt), streamer), Optional.empty());
  }

  /**
   * Serves a generation on prompt text on a grant, streaming; see the ungranted form. A cancelled
   * serve debits the grant for the work it did, like any other.
   */
  public ServeResult serve(
      ServeRequest request, PromptText prompt, Presentation presentation, Streamer streamer)
      throws ServeException {
    return serve(
        request, new Ask.Generation(new Ask.Text(prompt), streamer), Optional.of(presentation));
  }

  /**
   * Serves an ungranted typed decision asked as prompt text (§3.6): the routed decision engine lays
   * out its own payload for the questions and the state ({@link DecisionEngine#payload}).
   *
   * @param request a decision request for this prompt ({@link ServeRequest#decision(DecisionPrompt,
   *     org.meshjava.core.Fidelity, long)} makes one)
   * @throws ServeException {@link ServeException.Reason#PROMPT_MISMATCH} or {@link
   *     ServeException.Reason#QUESTIONS_MISMATCH} if the request does not fit the prompt
   */
  public ServeResult serve(ServeRequest request, DecisionPrompt prompt) throws ServeException {
    return serve(
        request, new Ask.Decision(new Ask.Laid(prompt), prompt.questions()), Optional.empty());
  }

  /** Serves a typed decision asked as prompt text on a grant. */
  public ServeResult serve(ServeRequest request, DecisionPrompt prompt, Presentation presentation)
      throws ServeException {
    return serve(
        request,
        new Ask.Decision(new Ask.Laid(prompt), prompt.questions()),
        Optional.of(presentation));
  }

  /**
   * Serves an ungranted {@code request} on a prompt token payload the caller tokenized itself. The
   * payload is handed unchanged to whichever engine the request routes to.
   *
   * @param request the request; its {@code prompt_hash} addresses the prompt bytes
   * @param prompt the token payload handed to the engine; never enters the receipt in the clear
   * @throws ServeException if any phase refuses or fails; nothing is sealed
   */
  public ServeResult serve(ServeRequest request, TokenSequence prompt) throws ServeException {
    return serve(request, new Ask.Generation(new Ask.Tokens(prompt)), Optional.empty());
  }

  /**
   * Serves {@code request} on a grant, presented by its issuer for this request (§2.1).
   *
   * @throws NotIssuerException if the caller is not the leaf's issuer or did not sign this request
   * @throws GrantDeniedException if the grant refuses the serve
   * @throws GrantsSuspendedException if the steward no longer honours grants
   * @throws ServeException for any other refusal or failure; nothing is sealed
   */
  public ServeResult serve(ServeRequest request, TokenSequence prompt, Presentation presentation)
      throws ServeException {
    return serve(request, new Ask.Generation(new Ask.Tokens(prompt)), Optional.of(presentation));
  }

  /**
   * Serves a typed decision (§3.6) and hands back the engine's answers with the receipt. The
   * questions must be the ones the request's decision shape counts (number, and options across
   * them); only a {@link DecisionEngine} is admissible; and the engine must answer exactly these
   * questions, one probability per option. The answers never enter the receipt.
   *
   * @param request a decision request
   * @param prompt the token payload: the questions' schema and the state under judgement
   * @param questions the typed questions, in order
   * @throws ServeException {@link ServeException.Reason#QUESTIONS_MISMATCH} if the questions do not
   *     fit the request, and as {@link #serve(ServeRequest, TokenSequence)} otherwise; nothing is
   *     sealed
   */
  public ServeResult serve(
      ServeRequest request, TokenSequence prompt, List<DecisionQuestion> questions)
      throws ServeException {
    return serve(request, new Ask.Decision(new Ask.Tokens(prompt), questions), Optional.empty());
  }

  /** Serves a typed decision on a grant; see the two methods above. */
  public ServeResult serve(
      ServeRequest request,
      TokenSequence prompt,
      List<DecisionQuestion> questions,
      Presentation presentation)
      throws ServeException {
    return serve(
        request, new Ask.Decision(new Ask.Tokens(prompt), questions), Optional.of(presentation));
  }

  private ServeResult serve(ServeRequest request, Ask ask, Optional<Presentation> presentation)
      throws ServeException {
    Objects.requireNonNull(request, "request");
    if (listener == null) {
      return serve(request, ask, presentation, ServeObserver.NONE);
    }
    ServeObserver observer =
        listener.serveStarted(
            new ServeStarted(
                request,
                presentation.isPresent(),
                ask instanceof Ask.Generation g && g.streamer() != Streamer.NONE));
    ServeResult result;
    try {
      result = serve(request, ask, presentation, observer);
    } catch (ServeException e) {
      observer.refused(e);
      throw e;
    } catch (RuntimeException | Error e) {
      observer.failed(e);
      throw e;
    }
    GuardedListener.afterTheWork("served", () -> observer.served(result));
    return result;
  }

  /** The four phases, each announced to {@code observer} as it begins. */
  private ServeResult serve(
      ServeRequest request, Ask ask, Optional<Presentation> presentation, ServeObserver observer)
      throws ServeException {
    if (!inFlight.enter()) {
      // Before any work: a closed steward's journal records nothing, so an engine run now would
      // be work no receipt or debit could ever account for.
      throw closedRefusal();
    }
    try {
      return admitted(request, ask, presentation, observer);
    } finally {
      inFlight.exit();
    }
  }

  /**
   * Refuses a serve, before any work, once the journal has failed (a full disk, a failed sync): it
   * never records again until the steward is restarted on it (SPEC.md 60.2, "Storage faults"), so
   * an engine run now would be work no receipt or debit could account for, as for a closed steward.
   * Checked here and not only when a record is queued, because a grant is decided before its record
   * is: deciding it on a failed journal marked the presentation spent in this process, and a resend
   * of it was then refused {@code presentation-spent} (403) although nothing of it was recorded.
   * The refusal's cause is a {@code FAILED} journal failure, as when a record is refused, so that a
   * caller can tell a journal failed for good from one closed with its steward (an HTTP binding
   * tells its clients not to resend on the first, SPEC.md 70). A receipt whose recording failed
   * unchecked counts as such a failure: its record may be queued while the chain did not advance,
   * so nothing is sealed until a restart finds where the chain stands ({@link Sealer#refusal}).
   */
  private void refuseIfJournalFailed() throws ServeException {
    Optional<String> refuses = journal.refusesAppends().or(sealer::refusal);
    // Read after the journal's answer: the close marks this before it closes the journal, so a
    // journal found closed by the close is always seen as such.
    if (refuses.isPresent() && journalClosedByClose) {
      // Admitted before a close whose grace ran out and that then closed the journal: the steward
      // closed, nothing failed. Refused as any serve on a closed steward, since a FAILED cause
      // tells an HTTP client that a resend is futile, and "restart" is no advice for a close.
      throw closedRefusal();
    }
    if (refuses.isPresent()) {
      // A failure while the close waits for serves in flight is a failure all the same: the
      // journal has not been closed, and the next steward on it meets what broke it.
      throw new ServeException(
          ServeException.Reason.NOT_RECORDED,
          refuses.get() + "; nothing is served until the steward is restarted on its journal",
          new JournalException(JournalException.Reason.FAILED, refuses.get(), null));
    }
  }

  /** The refusal of a serve that finds its steward closed, before any work. */
  private static ServeException closedRefusal() {
    return new StewardClosedException();
  }

  /** A serve {@link InFlightServes admitted} before any close: phases 1 to 4. */
  private ServeResult admitted(
      ServeRequest request, Ask ask, Optional<Presentation> presentation, ServeObserver observer)
      throws ServeException {
    if (presentation.isPresent() && grantsNeedDurableJournal.isPresent()) {
      throw new ServeException(
          ServeException.Reason.JOURNAL_NOT_DURABLE, grantsNeedDurableJournal.get());
    }
    refuseIfJournalFailed();
    ask.fit(request);
    observer.phase(ServePhase.ROUTE);
    // 1. Route, once, with every admission rule; then the routed engine makes its own payload.
    AdmissionRule grantRule = presentation.map(Authoriser::admission).orElse(AdmissionRule.ALL);
    AdmissionRule kind = ask.admits();
    AdmissionRule model = ModelRule.of(request, router);
    // The rules ask the engine (its weights for a grant's ModelIn): the router refuses the one
    // candidate whose code throws (Router's weigh), so another backend can still serve.
    RouteDecision route =
        route(
            request,
            backend ->
                kind.refuse(backend)
                    .or(() -> model.refuse(backend))
                    .or(() -> grantRule.refuse(backend)));
    RoutedBackend backend = RoutedBackend.of(route, heldFaults);
    // Encoded and hashed once for the serve: the caller's signature, the grant's decision, its
    // journal record, a seeded engine and the receipt all read these bytes and this id.
    IdentifiedRequest identified = IdentifiedRequest.of(request);
    if (presentation.isPresent()) {
      // 2. Authorise begins with the checks that need no backend and no spend (§2.1's caller, the
      // chain's signatures, linkage, attenuation and holder; then, at a reading of the decision
      // clock, each link's window, revocation, action and request, and its budget against the
      // ceiling): made before the slot is taken, so a presentation its caller did not sign, a
      // chain made up or held elsewhere, or a valid one the decision would refuse (a self-
      // delegation expired or of no budget) holds none, and a flood of them cannot make a real
      // serve beside them find the backend busy. The decision makes them all again.
      authoriser.authenticate(presentation.get(), identified);
    }
    BackendSlots.Held slot = slots.take(backend);
    try {
      return serve(request, ask, presentation, identified, route, backend, slot, observer);
    } finally {
      slot.close();
    }
  }

  /**
   * Phases 2 to 4, once routed, holding a slot on the chosen backend. A grant's hold is settled
   * exactly once, in the {@code finally}, whichever way the meter phase ends: that is the only
   * debit a serve makes.
   */
  private ServeResult serve(
      ServeRequest request,
      Ask ask,
      Optional<Presentation> presentation,
      IdentifiedRequest identified,
      RouteDecision route,
      RoutedBackend backend,
      BackendSlots.Held slot,
      ServeObserver observer)
      throws ServeException {
    TokenSequence payload = payload(ask, backend);
    refuseOverContext(request, backend, payload);
    if (presentation.isPresent()) {
      refuseOverCeiling(request, backend, payload);
    }
    observer.phase(ServePhase.AUTHORISE);
    // 2. Authorise. The binding read here is the one the grant is decided over; the engine must
    // name exactly it before and after the work, or nothing is sealed (§2).
    Optional<WeightsBinding> bound = Metering.weightsOf(backend);
    Settlement settlement =
        presentation.isPresent()
            ? authoriser.authorise(presentation.get(), identified, backend.name(), bound)
            : Settlement.ungranted();
    // 3. Meter, check what the engine answered, and settle.
    Metered metered;
    Optional<String> text;
    Optional<DebitResult> debit;
    boolean sealFollows = false;
    Throwable refused = null;
    try {
      try {
        observer.phase(ServePhase.METER);
      } catch (RuntimeException | Error e) {
        // Only the JVM failing passes the listener guard. The grant is decided: the finally
        // settles it at nothing, since no work ran, rather than leaving the ceiling held.
        settlement.charge(Energy.estimated(0));
        throw e;
      }
      metered = metering.run(ask, route, identified, payload, bound, settlement, slot);
      ask.check(backend, route.chosenCandidate().fidelity(), request, metered.worked());
      text = ask.text(backend, metered.worked());
      sealFollows = true;
    } catch (ServeException | RuntimeException | Error e) {
      refused = e;
      throw e;
    } finally {
      // When a seal follows, its journal record's sync covers the debit's (record order).
      debit = settle(settlement, !sealFollows, refused);
    }
    // 4. Seal.
    GuardedListener.afterTheWork("phase", () -> observer.phase(ServePhase.SEAL));
    SealedReceipt sealed = sealer.seal(identified, payload, route, metered, settlement, debit);
    return new ServeResult(
        metered.result().tokens(),
        metered.result().outcome(),
        route,
        sealed,
        metered.answers(),
        payload,
        metered.result().accounting(),
        text);
  }

  /**
   * Settles the serve's grant; if the debit cannot be journalled, its failure is what the caller
   * must act on ({@code NOT_RECORDED}, or grants suspended), and {@code refused}, the reason the
   * work ended if it did, rides on it as suppressed rather than being dropped.
   */
  private static Optional<DebitResult> settle(
      Settlement settlement, boolean awaitDurable, @Nullable Throwable refused)
      throws ServeException {
    try {
      return settlement.settle(awaitDurable);
    } catch (ServeException | RuntimeException | Error e) {
      if (refused != null && refused != e) {
        e.addSuppressed(refused);
      }
      throw e;
    }
  }

  /**
   * Refuses a request whose payload and output would not fit the routed engine's context: the
   * engine could only fail on it, and a refusal before authorising costs the caller nothing (issue
   * 14: never debit for work an engine could not do).
   */
  private static void refuseOverContext(
      ServeRequest request, RoutedBackend backend, TokenSequence payload) throws ServeException {
    OptionalLong context =
        EngineAnswer.of(backend, "say its context size", backend.engine()::contextTokens);
    long output = request.isDecision() ? 0 : request.maxTokens();
    if (context.isPresent() && payload.size() + output > context.getAsLong()) {
      throw new ServeException(
          ServeException.Reason.OVER_CONTEXT,
          backend
              + " holds "
              + context.getAsLong()
              + " tokens in all; the prompt is "
              + payload.size()
              + " of its tokens and max_tokens "
              + output);
    }
  }

  /**
   * Refuses a granted serve whose estimate, priced over the payload the routed engine will run,
   * exceeds the request's joule ceiling. The router priced the {@code prompt_tokens} the caller
   * declared, which only the caller vouches for; a grant reserves the ceiling and nothing more, so
   * a caller who declared 0 tokens for a long prompt was admitted at a tiny ceiling and then
   * debited far beyond its budget (the debit stands, the work having run). Only an engine that
   * counts its own payload ({@link TokenAccounting#EMITTED}) is checked: an upstream bills by its
   * own tokenizer, which this payload does not show.
   */
  private static void refuseOverCeiling(
      ServeRequest request, RoutedBackend backend, TokenSequence payload) throws ServeException {
    ServingEngine engine = backend.engine();
    if (EngineAnswer.of(backend, "say how it counts tokens", engine::tokenAccounting)
        != TokenAccounting.EMITTED) {
      return;
    }
    // Asked apart from the estimate: a profile answered null is refused in words saying so, not
    // a NullPointerException's about this code (the router asked first and saw one).
    CostProfile profile = EngineAnswer.of(backend, "name its cost profile", engine::costProfile);
    long estimate =
        EngineAnswer.of(
            backend, "estimate its payload", () -> profile.estimate(request, payload.size()));
    if (estimate > request.jouleCeilingUj()) {
      throw new ServeException(
          ServeException.Reason.OVER_CEILING,
          backend
              + " would run a payload of "
              + payload.size()
              + " tokens (the request declares prompt_tokens "
              + request.promptTokens()
              + "), estimated at "
              + estimate
              + " µJ, above the joule ceiling of "
              + request.jouleCeilingUj()
              + " µJ; declare the prompt's tokens and a ceiling that covers them");
    }
  }

  /**
   * The routed engine's payload; an engine that cannot tokenize the prompt has done no work. Its
   * tokenizer is the engine's code as its other answers are ({@link EngineAnswer}): a throw, or no
   * payload at all, is this request's refusal, and the region ends by taking a fault of a mapped
   * read held back there, so it is refused here, not at the next question in another's words. Only
   * the JVM failing passes, met before any grant is decided.
   */
  private static TokenSequence payload(Ask ask, RoutedBackend backend) throws ServeException {
    return EngineAnswer.of(
        backend, "turn the prompt into its payload", () -> ask.payloadFor(backend.engine()));
  }

  /** Derives the opening of the output commitment for a request this steward served (§6.4). */
  public Opening opening(ContentId requestId) {
    return sealer.opening(requestId);
  }

  /**
   * Discloses the output of a generation this steward sealed (§6.4): its opening, the digest of the
   * prompt payload, and the tokens. The disclosure is checked against the receipt before it is
   * returned, so a wrong payload or a receipt from another steward is refused, not disclosed. Works
   * after a restart: the opening is derived from the signing key, never stored.
   *
   * @param receipt a receipt this steward sealed
   * @param prompt the prompt payload the engine was handed
   * @param tokens the output tokens
   * @throws ReceiptException {@code NO_COMMITMENT} for a receipt that commits to nothing (a
   *     decision), {@code NOT_OPENED} if these are not the values it committed to
   */
  public Disclosure disclose(MeshReceipt receipt, TokenSequence prompt, TokenSequence tokens)
      throws ReceiptException {
    Disclosure d = Disclosure.of(opening(receipt.requestId()), prompt, tokens);
    d.verify(receipt);
    return d;
  }

  /** Discloses the output of {@code result}, served on {@code prompt}; see {@link #disclose}. */
  public Disclosure disclose(ServeResult result, TokenSequence prompt) throws ReceiptException {
    return disclose(result.receipt(), prompt, result.tokens());
  }

  /** Discloses the output of {@code result} on the payload its engine was handed. */
  public Disclosure disclose(ServeResult result) throws ReceiptException {
    return disclose(result.receipt(), result.payload(), result.tokens());
  }

  /**
   * Answers whether the journal holds a receipt this steward sealed (§2.2); {@link #witnessed}
   * gives the same verdict with the transparency log's proof of it.
   *
   * @throws ReceiptException as {@link #witnessed}
   * @throws LogException as {@link #witnessed}
   */
  public WitnessVerdict witness(MeshReceipt receipt, Envelope envelope)
      throws ReceiptException, LogException {
    return witnessed(receipt, envelope).verdict();
  }

  /**
   * Answers whether the journal holds a receipt this steward sealed (§2.2), from the transparency
   * log: the receipt is held when the log's leaf at its position is its envelope's. Anyone may show
   * the steward a receipt with its envelope; a caller should show its latest one after the steward
   * restarts. A held receipt comes with its inclusion proof against the latest signed checkpoint
   * (signed first if the log grew, unless another caller's checkpoint is being journalled and the
   * latest one already covers the receipt), and that checkpoint, so the caller can check the answer
   * with the steward's did:key alone (SPEC.md §65). With the log turned off the verdict is read
   * from the journal's record of envelope ids, and carries no proof.
   *
   * <p>{@link WitnessVerdict#NOT_HELD} means records were cut from the journal after that receipt
   * left, so the spend the steward replayed is less than it signed for: from then on it refuses
   * every grant ({@link GrantsSuspendedException}) until an operator restores the journal and lifts
   * the suspension ({@code mesh journal resume-grants}), while ungranted serves go on. The
   * suspension is journalled, so a restart keeps it.
   *
   * @throws ReceiptException if the envelope does not verify, is not this steward's, or does not
   *     seal the given receipt; such a receipt is no evidence and changes nothing
   * @throws LogException {@code UNREADABLE} when the log's tree can no longer be read (the snapshot
   *     file it is read from was cut short under the steward, SPEC.md §60.8), or, with the log
   *     turned off, the index of envelope ids read from that file: no verdict can be given, and
   *     nothing changes (grants are not suspended)
   */
  public WitnessAnswer witnessed(MeshReceipt receipt, Envelope envelope)
      throws ReceiptException, LogException {
    SealedReceipt opened = Jcr1.open(envelope);
    if (!opened.receipt().equals(receipt)) {
      throw new ReceiptException(
          ReceiptException.Reason.INCONSISTENT_RECEIPT, "the envelope does not seal this receipt");
    }
    if (!receipt.steward().equals(identity)) {
      throw new ReceiptException(
          ReceiptException.Reason.STEWARD_MISMATCH,
          "sealed by " + receipt.steward() + ", not by this steward " + identity);
    }
    if (logKeeper.holds(receipt.sequence(), envelope.id())) {
      return new WitnessAnswer(
          WitnessVerdict.HELD, receipt.sequence(), logKeeper.prove(receipt.sequence()));
    }
    authoriser.suspend(
        "shown receipt "
            + receipt.sequence()
            + " (envelope "
            + envelope.id()
            + ") that journal "
            + journal.describe()
            + " does not hold; restore the journal, then"
            + " lift with `mesh journal resume-grants`",
        new JournalEntry.Suspended(receipt.sequence(), envelope));
    return new WitnessAnswer(WitnessVerdict.NOT_HELD, receipt.sequence(), Optional.empty());
  }

  /**
   * Revokes a grant on its issuer's signed statement (SPEC.md 30 §11): the statement is verified,
   * journalled, and then refuses, with {@code revoked}, every decision at or after its time on any
   * chain containing the grant. A restart replays it.
   *
   * @return false when the grant was already revoked from that time or earlier (nothing changes)
   * @throws GrantRefusedException if the statement does not verify: a chain that does not verify, a
   *     revoker that issued no link of it ({@code not-issuer}), or a forged signature
   * @throws ServeException {@link ServeException.Reason#NOT_RECORDED} if the journal cannot record
   *     it
   */
  public boolean revoke(Revocation revocation) throws GrantRefusedException, ServeException {
    revocation.verify();
    return authoriser.revoke(revocation);
  }

  // ---- the transparency log (SPEC.md §65) ----------------------------------------------------

  /**
   * Writes a journal snapshot now (SPEC.md §60.8), covering every record durable so far, besides
   * the ones the builder's cadence writes; a restart then replays only what follows it.
   *
   * @return the journal position the snapshot covers
   * @throws IllegalStateException if the steward keeps no snapshots ({@link Builder#snapshots})
   * @throws SnapshotException {@code TOO_LARGE} if it would be larger than the store saves (SPEC.md
   *     §60.8, "Size"; the previous snapshot stays the latest, and from then on this steward takes
   *     no more and throws the same refusal), {@code IO} if it could not be read or stored, or once
   *     the steward is closed (its close wrote the last one; a steward started again takes more)
   */
  public JournalPosition snapshot() throws SnapshotException {
    Snapshotter sn =
        snapshotter.orElseThrow(() -> new IllegalStateException("this steward keeps no snapshots"));
    try {
      return sn.snapshot();
    } catch (JournalException e) {
      throw new SnapshotException(
          SnapshotException.Reason.IO, "the journal could not be read: " + e.getMessage(), e);
    }
  }

  /** The transparency log's root now, for tests that compare recoveries. */
  org.meshjava.receipt.tlog.TreeHash logRoot() {
    try {
      return logKeeper.root();
    } catch (LogException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The bytes the log's tree holds on the heap (SPEC.md §60.9); for tests. */
  long logHeapBytes() throws LogException {
    return logKeeper.log().heapBytes();
  }

  /**
   * Returns the latest signed checkpoint of the transparency log, first signing and journalling a
   * new one if receipts were sealed since the last: a C2SP checkpoint as a signed note, with the
   * witness cosignatures accepted for it. Empty before the first receipt, and when the log is
   * turned off ({@link #keepsLog()}).
   *
   * @throws ServeException {@link ServeException.Reason#NOT_RECORDED} if the new checkpoint cannot
   *     be journalled (it is then not handed out)
   * @throws LogException {@code UNREADABLE} when the log's tree can no longer be read (SPEC.md
   *     §60.8): no checkpoint is signed or handed out until a restart
   */
  public Optional<SignedNote> checkpoint() throws ServeException, LogException {
    return logKeeper.checkpoint();
  }

  /** Returns the note key that signs this steward's checkpoints; its name is the log's origin. */
  public NoteVerifierKey logKey() {
    return Checkpoint.logKey(identity);
  }

  /** Whether this steward keeps a transparency log ({@link Builder#transparencyLog}). */
  public boolean keepsLog() {
    return !(logKeeper instanceof LogKeeper.Off);
  }

  /**
   * Returns the proof that receipt {@code sequence} is in the log of size {@code treeSize}; its
   * leaf hash is {@link InclusionProof#leafHash} of the receipt's envelope id.
   *
   * @throws LogException {@code OUT_OF_RANGE} when the receipt or the size is not in the log;
   *     {@code NOT_KEPT} when the log is turned off; {@code UNREADABLE} when its tree can no longer
   *     be read (SPEC.md §60.8)
   */
  public InclusionProof inclusionProof(long sequence, long treeSize) throws LogException {
    return logKeeper.inclusionProof(sequence, treeSize);
  }

  /**
   * Returns the proof that the receipt whose envelope id is {@code envelopeId} is in the log of
   * size {@code treeSize}; {@link #logSequenceOf} names its sequence.
   *
   * @throws LogException {@code OUT_OF_RANGE} when the log holds no such receipt within that size,
   *     or the size is not in the log; {@code NOT_KEPT} when the log is turned off; {@code
   *     UNREADABLE} when its tree can no longer be read (SPEC.md §60.8)
   */
  public InclusionProof inclusionProof(ContentId envelopeId, long treeSize) throws LogException {
    return logKeeper.inclusionProof(envelopeId, treeSize);
  }

  /**
   * Returns the sequence of the receipt whose envelope id is {@code envelopeId}, or empty when the
   * transparency log does not hold it (or is turned off).
   *
   * @throws LogException {@code UNREADABLE} when the log's tree can no longer be read (SPEC.md
   *     §60.8): whether it holds the receipt cannot be told
   */
  public OptionalLong logSequenceOf(ContentId envelopeId) throws LogException {
    if (!keepsLog()) {
      return OptionalLong.empty();
    }
    return logKeeper.sequenceOf(envelopeId);
  }

  /**
   * Returns the proof that the log of size {@code toSize} extends the one of size {@code fromSize}.
   *
   * @throws LogException {@code OUT_OF_RANGE} unless {@code 0 < fromSize <= toSize <= size}; {@code
   *     NOT_KEPT} when the log is turned off; {@code UNREADABLE} when its tree can no longer be
   *     read (SPEC.md §60.8)
   */
  public ConsistencyProof consistencyProof(long fromSize, long toSize) throws LogException {
    return logKeeper.consistencyProof(fromSize, toSize);
  }

  /**
   * Answers whether the transparency log holds the tree a checkpoint this steward signed describes
   * (§2.2, SPEC.md §60.4): {@link WitnessVerdict#HELD} when the log reproduces it (its size is
   * within the log and the log's root at that size is the signed one), else {@link
   * WitnessVerdict#NOT_HELD}.
   *
   * <p>Every checkpoint is journalled before it is handed out and the log only grows, so one this
   * steward signed that its log does not reproduce (a larger tree, or another root at a size the
   * log has) shows that the journal was restored from an older copy, or that another journal runs
   * under this key (a fork): presentations and budget spent after that point could be spent again.
   * As for a receipt the journal lacks ({@link #witnessed}), the steward then refuses every grant
   * ({@link GrantsSuspendedException}) until an operator restores the journal and lifts the
   * suspension ({@code mesh journal resume-grants}), while ungranted serves go on; the suspension,
   * carrying the checkpoint, is journalled, so a restart keeps it.
   *
   * @throws LogException when the note is no evidence about this steward and changes nothing: not
   *     signed by {@link #logKey()} ({@code UNSIGNED}, {@code BAD_SIGNATURE}), not a checkpoint of
   *     its log ({@code MALFORMED_CHECKPOINT}); {@code NOT_KEPT} when the log is turned off; {@code
   *     UNREADABLE} when its tree can no longer be read (SPEC.md §60.8), which changes nothing
   */
  public WitnessVerdict witnessCheckpoint(SignedNote checkpoint) throws LogException {
    Optional<String> contradiction = logKeeper.contradiction(checkpoint);
    if (contradiction.isEmpty()) {
      return WitnessVerdict.HELD;
    }
    authoriser.suspend(
        "shown a checkpoint of its transparency log that journal "
            + journal.describe()
            + " does not hold: "
            + contradiction.get()
            + " (the journal was restored from an older copy, or another journal runs under this"
            + " key); restore the journal, then lift with `mesh journal resume-grants`",
        new JournalEntry.SuspendedByCheckpoint(checkpoint));
    return WitnessVerdict.NOT_HELD;
  }

  /**
   * Accepts a witness's cosignature: {@code cosigned} is the latest checkpoint carrying a line by a
   * witness key configured with {@link Builder#witness}. It is verified, journalled and from then
   * on served with the checkpoint. A checkpoint this steward signed that its log does not hold is
   * first taken as evidence, as {@link #witnessCheckpoint} takes it: grants are suspended, and it
   * is refused {@code CHECKPOINT_MISMATCH} with {@link LogException.Mismatch#NOT_HELD}. The note's
   * signature by the log key is checked once, here; a caller has no need to ask {@link
   * #witnessCheckpoint} first.
   *
   * @return the latest checkpoint with every accepted cosignature
   * @throws LogException {@code CHECKPOINT_MISMATCH} when it is not the latest checkpoint ({@link
   *     LogException.Mismatch#OTHER_CHECKPOINT}) or is one this log does not hold ({@link
   *     LogException.Mismatch#NOT_HELD}), {@code UNSIGNED} when no configured witness signed it,
   *     {@code BAD_SIGNATURE} for a forged line, {@code NOT_KEPT} when the log is turned off,
   *     {@code UNREADABLE} when its tree can no longer be read (SPEC.md §60.8)
   * @throws ServeException {@link ServeException.Reason#NOT_RECORDED} if it cannot be journalled,
   *     or if a newer checkpoint whose write failed (it may be stored all the same) cannot be
   *     journalled again first; until it is, no cosignature is journalled after it
   */
  public SignedNote cosign(SignedNote cosigned) throws LogException, ServeException {
    WitnessVerdict verdict;
    try {
      verdict = witnessCheckpoint(cosigned);
    } catch (LogException noEvidence) {
      verdict = WitnessVerdict.HELD; // not this log's: the cosignature checks below answer it
    }
    if (verdict == WitnessVerdict.NOT_HELD) {
      throw LogException.notHeld(
          "this steward signed that checkpoint but its log does not hold it; grants are refused"
              + " from now on");
    }
    return logKeeper.cosign(cosigned);
  }

  /**
   * Releases what the steward owns: the journal (and its lock) and its lease on a discovered meter
   * (the meter closes with the last steward that shares it), after signing and journalling a last
   * checkpoint of the transparency log so a restart checks every receipt, and, when it keeps
   * snapshots, writing a last one so a restart replays nothing. Not its backends, which stay their
   * caller's to close ({@link Builder#backend}). From then on every serve is refused ({@link
   * ServeException.Reason#NOT_RECORDED}) before any engine runs. Closing again does nothing more.
   *
   * <p>Serves in flight are let finish first, for at most {@link Builder#closeGrace} (30 s by
   * default): each is metered, debited, sealed and journalled as any other, while a serve that
   * begins once the close has begun is refused at once. A serve still running when the grace runs
   * out (or when the closing thread is interrupted) is cut: one whose receipt was already queued
   * for the journal gets it, since the journal's close writes what was queued before it; one still
   * in its engine finishes the engine's work and is then refused {@code NOT_RECORDED}, sealing
   * nothing (one that had not reached its engine is refused as a serve on the closed steward, with
   * no journal failure as its cause); a granted one that ran has had its authorisation journalled
   * but not its debit, so a steward started later over the journal holds it at its whole joule
   * ceiling ({@link #unresolved()}). A serve on the closing thread itself (an engine or listener
   * closing its own steward) is not waited for. Nothing is written to the journal once this
   * returns. May be called from any thread: a call made while another thread closes returns once
   * that close is done (the journal released), unless it is made from a serve on this steward,
   * which that close may be waiting for; an interrupt ends its wait early.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      awaitTheFirstClose();
      return;
    }
    closing = Thread.currentThread();
    try {
      closeOnce();
    } finally {
      closeDone.countDown();
    }
  }

  /**
   * Waits for the close another call began. Not on that close's own thread (a listener it calls) or
   * a thread with a serve in flight here, which that close may be waiting for: they return at once.
   */
  private void awaitTheFirstClose() {
    if (Thread.currentThread() == closing || inFlight.servingOnThisThread()) {
      return;
    }
    try {
      closeDone.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void closeOnce() {
    int cut = inFlight.close(closeGrace);
    if (cut > 0) {
      LOG.warn(
          "closing with {} serve(s) still in flight after waiting {} ms: they seal nothing, and a"
              + " granted one stays held at its joule ceiling until a later steward resolves it",
          cut,
          closeGrace.toMillis());
    }
    // Each part is let go whatever an earlier part threw, an Error included (a store's class
    // missing at run time, an assertion in a snapshot's save): the claim and the journal's lock
    // held past a failed close would refuse every later steward on this journal in this process.
    // The first failure is thrown once all are let go, the others suppressed on it.
    Throwable failed = null;
    failed = closePart(failed, logKeeper::closing);
    failed = closePart(failed, () -> snapshotter.ifPresent(Snapshotter::close));
    journalClosedByClose = true;
    failed = closePart(failed, journal::close);
    failed = closePart(failed, () -> ClaimedJournals.release(claimed));
    SnapshotFolderHold folder = snapshotFolder;
    if (folder != null) {
      // After the last snapshot, which the claim let go would refuse.
      failed = closePart(failed, folder::close);
    }
    // The meter's lease is released whatever the parts before did, so a re-probe thread never
    // outlives the last steward that used it.
    MeterLease held = lease;
    if (held != null) {
      failed =
          closePart(
              failed,
              () -> {
                try {
                  held.close();
                } catch (RuntimeException e) {
                  throw new IllegalStateException("closing the discovered meter failed", e);
                }
              });
    }
    if (failed instanceof RuntimeException e) {
      throw e;
    }
    if (failed instanceof Error e) {
      throw e;
    }
    if (failed != null) {
      // A checked exception thrown where none is declared: close declares none, so it is carried
      // in an unchecked one, never dropped.
      throw new IllegalStateException(
          "closing the steward failed: " + ThrowableWords.describe(failed), failed);
    }
  }

  /**
   * Runs {@code part} of a close; returns {@code failed}, or what {@code part} threw if nothing
   * failed before, suppressing it on the first failure otherwise ({@link FirstFailureWins}).
   * Whatever it throws is caught, a checked exception too: a journal's or a store's close written
   * in another JVM language, or one that throws sneakily, otherwise skipped every later part (the
   * claim, the lock) and left this journal refused to every later steward in this process.
   */
  private static @Nullable Throwable closePart(@Nullable Throwable failed, Runnable part) {
    try {
      part.run();
      return failed;
    } catch (Throwable e) {
      return FirstFailureWins.keep(failed, e);
    }
  }

  // ---- phase 1: route ------------------------------------------------------------------------

  private RouteDecision route(ServeRequest request, AdmissionRule rule) throws ServeException {
    try {
      RouteDecision route = router.route(request, rule);
      judgingThrows.log(route.candidates());
      return route;
    } catch (NoAdmissibleBackendException e) {
      judgingThrows.log(e.candidates());
      throw new ServeException(
          ServeException.Reason.NO_ADMISSIBLE_BACKEND,
          String.valueOf(e.getMessage()),
          e.candidates(),
          e);
    }
  }

  /**
   * Configures a {@link Steward}. Not thread-safe. Builds one steward: {@link #build()} again
   * throws, since the first steward owns the journal and a second over it would fork the chain.
   */
  public static final class Builder {
    private final SigningKey key;
    private final boolean ephemeral;
    private boolean built;

    /** Whether this build let its journal go ({@link #letGo}), so that it is closed once. */
    private boolean journalLetGo;

    private final List<ServingEngine> backends = new ArrayList<>();
    private EnergyMeter meter;
    private @Nullable DiscoveryOptions discoveryOptions;
    private InstantSource clock = InstantSource.system();
    private NonceSource nonces = NonceSource.secureRandom();
    private ChainHead head;
    private Journal journal;
    private Revocations revocations = Revocations.none();
    private final Map<String, ServeLimits> caps = new HashMap<>();
    private final java.util.Set<NoteVerifierKey> witnesses = new java.util.HashSet<>();
    private int checkpointEvery = 1024;
    private @Nullable SnapshotStore snapshots;
    private @Nullable SnapshotFolderHold snapshotFolder;
    private long snapshotEvery = DEFAULT_SNAPSHOT_EVERY;
    // Whether snapshotEvery was given a count to write at: the default's count is no request for
    // snapshots, an explicit one without a store is (and is refused at build).
    private boolean snapshotEveryGiven;
    private long checkRecordsBeforeSnapshot = DEFAULT_CHECK_RECORDS_BEFORE_SNAPSHOT;
    private Duration snapshotInterval = Duration.ZERO;
    private boolean transparencyLog = true;
    private Duration closeGrace = InFlightServes.DEFAULT_GRACE;
    private Duration engineDeadline = Duration.ZERO;
    private Runnable heldFaults = MappedReadFault::deliverPending;
    private java.util.function.Supplier<java.util.concurrent.ScheduledExecutorService>
        snapshotWorker = Snapshotter::ownWorker;
    private final List<StewardListener> listeners = new ArrayList<>();

    @SuppressWarnings("NullAway.Init") // meter, head and journal have defaults chosen in build()
    private Builder(SigningKey key, boolean ephemeral) {
      this.key = Objects.requireNonNull(key, "key");
      this.ephemeral = ephemeral;
    }

    /** The identity the steward will have: the did:key of its sealing key, for issuing grants. */
    public DidKey identity() {
      return DidKey.of(key.verificationKey());
    }

    /**
     * Registers a backend; registration order breaks routing ties (§4). The engine stays the
     * caller's, as a meter given to {@link #meter} does: closing the steward does not close it,
     * since an engine may serve several stewards, or outlive one (a steward rebuilt over the same
     * engines). One that holds resources ({@code AutoCloseable}: an upstream engine's HTTP client,
     * a local model's native session) is closed by its caller once every steward routing to it is
     * closed, as {@code mesh serve} closes the upstream engines it builds.
     */
    public Builder backend(ServingEngine engine) {
      backends.add(Objects.requireNonNull(engine, "engine"));
      return this;
    }

    /**
     * Sets the energy meter. Without one, {@link #build()} probes this machine's energy counters
     * ({@link MeterDiscovery}), which reads hardware interfaces and may start a background re-probe
     * thread, and falls back to the {@link org.meshjava.energy.EstimatorMeter}; pass {@code new
     * EstimatorMeter()} for figures that never depend on the machine and a build that probes
     * nothing. A discovered meter is shared by the stewards of this process that discover with
     * equal options, and closes with the last of them ({@link MeterDiscovery#lease}); a meter given
     * here is the caller's, to share as it chooses and to close once every steward using it is
     * closed.
     *
     * @throws IllegalStateException if {@link #discovery} was set: a given meter is never
     *     discovered, so the two settings contradict each other
     */
    public Builder meter(EnergyMeter v) {
      Objects.requireNonNull(v, "meter");
      if (discoveryOptions != null) {
        throw meterWithDiscovery("meter()", "discovery()");
      }
      meter = v;
      return this;
    }

    /**
     * Sets where and how {@link #build()} discovers counters, which it does only when no meter is
     * given.
     *
     * @throws IllegalStateException if {@link #meter} was set: a given meter is never discovered,
     *     so the two settings contradict each other
     */
    public Builder discovery(DiscoveryOptions v) {
      Objects.requireNonNull(v, "discoveryOptions");
      if (meter != null) {
        throw meterWithDiscovery("discovery()", "meter(" + meter.name() + ")");
      }
      discoveryOptions = v;
      return this;
    }

    /**
     * The refusal of a meter and discovery options together, whichever is set second ({@code
     * setting}) after the other ({@code wasSet}): the rule both setters keep, worded once.
     */
    private static IllegalStateException meterWithDiscovery(String setting, String wasSet) {
      return new IllegalStateException(
          setting
              + " conflicts with "
              + wasSet
              + ", which was set: discovery options only apply when no meter is given");
    }

    /**
     * Sets the clock decisions are timed by; the default is the system clock. It is a wall clock
     * and may step either way (SPEC.md §60.3, "Clock steps"): each grant decision is judged at its
     * reading truncated to the millisecond and journalled with it, and a restart re-decides every
     * record at its recorded time, whatever this clock then reads. A reading the journal cannot
     * record ({@link org.meshjava.journal.JournalEntry.Authorised#EARLIEST} to {@link
     * org.meshjava.journal.JournalEntry.Authorised#LATEST}) refuses granted serves with {@code
     * NOT_RECORDED}. Durations are never measured with it.
     */
    public Builder clock(InstantSource v) {
      clock = Objects.requireNonNull(v, "clock");
      return this;
    }

    /** Sets the nonce source; the default draws from a {@link java.security.SecureRandom}. */
    public Builder nonces(NonceSource v) {
      nonces = Objects.requireNonNull(v, "nonces");
      return this;
    }

    /**
     * Says where the receipt chain stands (§6.3): {@link ChainHead#GENESIS} to start it at 0, or
     * the head of an existing chain to continue it. A steward built with {@link
     * #builder(SigningKey)} whose journal records no receipt needs this: it cannot know whether its
     * identity sealed receipts before (a journal lost, or a new one), and starting again at 0 would
     * fork a chain that others hold, so the operator says so. Conflicts with a journal that already
     * records receipts, which sets the head itself: {@link #build()} then throws {@link
     * ChainHeadConflictException}.
     */
    public Builder chainHead(ChainHead v) {
      head = Objects.requireNonNull(v, "head");
      return this;
    }

    /**
     * Sets the decision journal (§2.2); the steward takes ownership and closes it. A journal serves
     * one steward at a time: {@link #build()} refuses one that another steward in this process
     * holds. The default is an {@link InMemoryJournal}, which survives nothing.
     */
    public Builder journal(Journal v) {
      journal = Objects.requireNonNull(v, "journal");
      return this;
    }

    /**
     * Caps what the backend named {@code backend} takes, on top of its engine's own {@link
     * ServingEngine#limits()}: a request over the tighter of the two is inadmissible there, so it
     * is refused while routing, before any grant is decided or work done. Setting it again replaces
     * the cap.
     *
     * @throws IllegalArgumentException from {@link #build()} if no backend has that name
     */
    public Builder cap(String backend, ServeLimits limits) {
      caps.put(
          Objects.requireNonNull(backend, "backend"), Objects.requireNonNull(limits, "limits"));
      return this;
    }

    /**
     * Signs a checkpoint of the transparency log every {@code receipts} sealed receipts, besides on
     * demand ({@link Steward#checkpoint()}) and on close. The default is 1024.
     */
    public Builder checkpointEvery(int receipts) {
      checkpointEvery = Setting.atLeast("checkpointEvery", receipts, 1, "is at least 1, got ");
      return this;
    }

    /**
     * Keeps journal snapshots in {@code store} (§2.2, SPEC.md §60.8): the steward starts from the
     * latest one and replays only the records after it, writes one every {@link #snapshotEvery}
     * records and {@link #snapshotInterval}, and one on close. A snapshot that is not this
     * steward's, does not verify, or does not match the journal refuses the start ({@link
     * StewardStartException}): it is never trusted, and never silently skipped. The journal must
     * report its position ({@link Journal#position()}). A {@link FileSnapshotStore}'s folder is
     * claimed at {@link #build()} for this steward alone ({@link
     * FileSnapshotStore#claimForSteward(Journal)}; a second steward on it is refused, naming it)
     * and let go at its close, unless the store already holds a claim its caller took; even then, a
     * second steward over the same store is refused while this one is open.
     */
    public Builder snapshots(SnapshotStore store) {
      snapshots = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Writes a snapshot once {@code records} journal records were written since the last; 0 writes
     * none by count. The default is {@value Steward#DEFAULT_SNAPSHOT_EVERY}. Applies to the store
     * given to {@link #snapshots}: a count above 0 without one is refused at {@link #build()}.
     */
    public Builder snapshotEvery(long records) {
      snapshotEvery = Setting.atLeast("snapshotEvery", records, 0, "is at least 0, got ");
      snapshotEveryGiven = records > 0;
      return this;
    }

    /**
     * How many records a snapshot may cover for a start from it to read them first and check that
     * they still form one chain (§2.2): their encoding and links, not a replay, since the state is
     * the snapshot's. A start from a snapshot that covers more reads none of them, so that it costs
     * the state rather than the history, and leaves them to {@code mesh journal verify}; so does
     * one whose early records are archived without their segments. 0 never reads them; the default
     * is {@value Steward#DEFAULT_CHECK_RECORDS_BEFORE_SNAPSHOT}. A record edited there refuses the
     * start ({@link StewardStartException}), as it would without a snapshot.
     */
    public Builder checkRecordsBeforeSnapshot(long atMost) {
      checkRecordsBeforeSnapshot =
          Setting.atLeast("checkRecordsBeforeSnapshot", atMost, 0, "is at least 0, got ");
      return this;
    }

    /**
     * How long {@link Steward#close()} waits for serves in flight to finish (and be sealed and
     * journalled) before it closes the journal anyway; 30 s by default. Zero waits not at all, for
     * an application that drains its own requests first (as {@code mesh serve} does). A grace
     * longer than {@link Setting#MAX_TIME_LIMIT} (100 years) waits that long.
     */
    public Builder closeGrace(Duration grace) {
      // The wait is counted in nanoseconds: a grace past what they hold overflowed the count inside
      // close, after the steward was marked closed and before its journal was, leaving the lock
      // held. A longer one is taken as the bound, never refused: "wait for ever" is a fair wish.
      closeGrace = Setting.notNegativeUpToMax("closeGrace", grace, "is not negative: ");
      return this;
    }

    /**
     * How long a serve waits for its engine; zero, the default, waits as long as the engine takes
     * (bound it in the engine then: an upstream's HTTP timeouts, a runtime's own limit). With a
     * deadline, each engine call runs on a daemon thread of its own, where the streamer's sink is
     * opened and fed too. A serve whose engine has not returned by then is refused {@link
     * ServeException.Reason#ENGINE_FAILED} and its grant debited the request's whole joule ceiling,
     * since nothing can tell how much of the work ran (as after a crash, §2.2); the engine's thread
     * is interrupted, nothing more reaches the caller's sink, and whatever the engine returns later
     * is dropped, never sealed. The engine keeps its backend slot and its meter window until it
     * does return, so a stuck backend is asked for no more serves than it runs at once, and refuses
     * the rest {@code BACKEND_BUSY}; a backend that declares no bound is refused {@code
     * BACKEND_BUSY} while 8 of its calls past the deadline still run. An engine that closes this
     * steward from its thread is not waited for by that close, as on the serving thread. A deadline
     * longer than {@link Setting#MAX_TIME_LIMIT} (100 years) is that long.
     */
    public Builder engineDeadline(Duration deadline) {
      engineDeadline = Setting.notNegativeUpToMax("engineDeadline", deadline, "is not negative: ");
      return this;
    }

    /**
     * What ends each region that guards a read of a mapped file (an engine call, on the serving
     * thread and on an engine deadline's own thread; each question asked of the engine outside its
     * work; the gate's decision; a snapshot's taking and read-back; each read of the transparency
     * log's tree or the witness's index): {@link MappedReadFault#deliverPending}, which throws
     * there a fault of such a read that compiled code held back. Tests stand in a throw of that
     * fault for it, as a real one needs JIT-compiled code reading a file cut short under it.
     */
    Builder heldFaults(Runnable v) {
      heldFaults = Objects.requireNonNull(v, "heldFaults");
      return this;
    }

    /**
     * Where the snapshotter runs its snapshots: its own daemon thread by default. Tests stand in an
     * executor whose {@code execute} throws, as a real one does only when no thread can be made.
     */
    Builder snapshotWorker(
        java.util.function.Supplier<java.util.concurrent.ScheduledExecutorService> v) {
      snapshotWorker = Objects.requireNonNull(v, "snapshotWorker");
      return this;
    }

    /**
     * Writes a snapshot every {@code interval} (when records were written); zero, the default,
     * never. An interval longer than {@link Setting#MAX_TIME_LIMIT} (100 years) is that long.
     * Applies to the store given to {@link #snapshots}: an interval above zero without one is
     * refused at {@link #build()}.
     */
    public Builder snapshotInterval(Duration interval) {
      // Scheduled in milliseconds: an interval past what they hold overflowed the count inside
      // build, after the journal was opened and without closing it. A longer one is taken as the
      // bound, never refused: it means "never by time", as a Spring every-s of Long.MAX_VALUE does.
      snapshotInterval =
          Setting.notNegativeUpToMax("snapshotInterval", interval, "is not negative: ");
      return this;
    }

    /**
     * Keeps the transparency log (SPEC.md §65), or not. On by default. Off, the steward keeps no
     * Merkle tree, signs no checkpoint, answers every proof request with {@code NOT_KEPT}, and at
     * start does not check the journal's checkpoints, so an edited and re-hashed journal is no
     * longer caught there; the witness (§2.2) still answers, without a proof. Turning it on again
     * later rebuilds the tree from every receipt the journal holds, those sealed while it was off
     * included, and checks every journalled checkpoint again.
     */
    public Builder transparencyLog(boolean keep) {
      transparencyLog = keep;
      return this;
    }

    /** Accepts cosignatures on checkpoints from this witness key ({@link Steward#cosign}). */
    public Builder witness(NoteVerifierKey v) {
      witnesses.add(Objects.requireNonNull(v, "witness"));
      return this;
    }

    /**
     * Registers a listener that follows every serve's phases and outcome, every grant debit and
     * every journal write ({@link StewardListener}); listeners are called in registration order.
     * What a listener throws never breaks a serve. Without any, observation costs nothing.
     */
    public Builder listener(StewardListener v) {
      listeners.add(Objects.requireNonNull(v, "listener"));
      return this;
    }

    /** Sets the grant revocations the gate consults. */
    public Builder revocations(Revocations v) {
      revocations = Objects.requireNonNull(v, "revocations");
      return this;
    }

    /**
     * Builds the steward, replaying the journal first if it holds records. With no {@link #meter}
     * set, this takes a lease on the meter discovered for its options, probing the machine's energy
     * counters unless a steward of this process holds one already, and may start a background
     * re-probe thread (see {@link #meter}); {@link Steward#close()} releases the lease, and the
     * last release stops the thread. A build that fails releases its lease.
     *
     * @throws IllegalArgumentException if no backend is registered, two share a name, a cap names
     *     no backend, an ephemeral identity was given a head other than genesis, or a snapshot
     *     cadence ({@link #snapshotEvery} above 0, {@link #snapshotInterval} above zero) was set
     *     without a {@link #snapshots} store to write to
     * @throws ChainHeadConflictException (an {@code IllegalArgumentException}) if a chain head was
     *     given for a journal that already records receipts
     * @throws IllegalStateException if this builder was built before: the steward it built owns the
     *     journal, and a second one over it would fork the receipt chain (every builder builds one
     *     steward, whichever identity it has)
     * @throws StewardStartException {@code LOCKED} if another steward in this process was built
     *     over this same journal and is not closed (its journal is left as it is); or if the
     *     journal cannot be replayed (its {@link StewardStartException#reason() reason} is the
     *     journal's: {@code CORRUPT}, {@code REPLAY_REFUSED}, {@code SNAPSHOT_REFUSED}, ...); the
     *     steward must not serve from it. Unchecked, like every other refusal to build: a steward
     *     that cannot start is a failure of its configuration, which no caller recovers from by
     *     retrying the build. The journal's own API reports the same causes as the checked {@link
     *     JournalException} (a corrupt file is refused by {@link
     *     org.meshjava.journal.FileJournal#open} before it reaches a builder); an application that
     *     wants to handle them opens its journal itself and catches them there.
     * @throws UnknownChainHeadException if the identity outlives the process, its journal records
     *     no receipt, and no {@link #chainHead} was given
     * @return the steward, which the caller closes
     */
    public Steward build() {
      if (built) {
        // Checked first, and the journal left alone: it belongs to the steward already built, and
        // a second steward over it would seal receipts with the same numbers, forking the chain.
        throw new IllegalStateException(
            "this builder has built its steward, which owns its journal: a builder builds one"
                + " steward (start a new builder, with its own journal, for another)");
      }
      if (backends.isEmpty()) {
        if (journal != null) {
          journal.close(); // as on every other refusal to build: the builder owns the journal
        }
        throw new IllegalArgumentException(
            "a steward needs at least one backend to serve with: register one with backend(engine)"
                + " (ReferenceEngine.builder().build() needs no weights)");
      }
      Router router;
      try {
        // Before the journal's replay and the meter's probe, which can take long (a probe burns a
        // core): a misnamed backend, or a cap for none, is refused at once.
        router = new Router(backends, caps);
      } catch (IllegalArgumentException e) {
        if (journal != null) {
          journal.close(); // the builder owns the journal, so this refusal lets it go too
        }
        throw e;
      }
      if (ephemeral && head != null && !head.equals(ChainHead.GENESIS)) {
        if (journal != null) {
          journal.close(); // the builder owns the journal, so this refusal lets it go too
        }
        throw new IllegalArgumentException(
            "an ephemeral identity has sealed nothing; its chain cannot continue from " + head);
      }
      refuseCadenceWithoutStore();
      Journal j = journal != null ? journal : InMemoryJournal.unretained();
      journal = j;
      if (!ClaimedJournals.claim(j)) {
        // Not closed here: the journal belongs to the steward that holds it.
        String held =
            "journal "
                + j.describe()
                + " is held by another steward in this process, built over this same journal and"
                + " not closed; close that steward first (two stewards over one journal would seal"
                + " receipts under the same numbers)";
        // The cause carries the reason; its own words stay short, since a stack trace prints
        // them under the outer message, which already says it all.
        throw new StewardStartException(
            held,
            new JournalException(
                JournalException.Reason.LOCKED,
                "claimed by an open steward in this process",
                null));
      }
      try {
        snapshotFolder = claimSnapshotFolder(j);
        return start(j, router);
      } catch (RuntimeException | Error e) {
        // The refusals let the journal go themselves; any other throw passes them (the JVM
        // failing while the journal is replayed, an InternalError that is no mapped read's fault,
        // a runtime exception out of a replay or of a part's construction), and the caller,
        // handed no steward, could not close it: its lock would stay held for every later start.
        try {
          letGo(j);
        } catch (RuntimeException | Error closing) {
          if (closing != e) {
            e.addSuppressed(closing);
          }
        }
        if (snapshotFolder != null) {
          snapshotFolder.close(); // a steward that never started saves nothing there
          snapshotFolder = null;
        }
        ClaimedJournals.release(j);
        throw e;
      }
    }

    /**
     * Refuses a snapshot cadence given without a store: the steward would write no snapshot, and a
     * restart would replay the whole journal, although the caller asked for snapshots.
     */
    private void refuseCadenceWithoutStore() {
      if (snapshots != null || (!snapshotEveryGiven && snapshotInterval.isZero())) {
        return;
      }
      if (journal != null) {
        journal.close(); // as on every other refusal to build: the builder owns the journal
      }
      throw new IllegalArgumentException(
          (snapshotEveryGiven ? "snapshotEvery(" + snapshotEvery + ")" : "")
              + (snapshotEveryGiven && !snapshotInterval.isZero() ? " and " : "")
              + (snapshotInterval.isZero() ? "" : "snapshotInterval(" + snapshotInterval + ")")
              + " set when to write snapshots, but no snapshots(store) was given to write them to,"
              + " so none would ever be written: give the builder a store"
              + " (snapshots(FileSnapshotStore.beside(journalPath))), or drop the cadence");
    }

    /**
     * Holds a folder store for the steward ({@link FileSnapshotStore#claimForSteward(Journal)},
     * SPEC.md §60.8 "One steward per folder"), claiming its folder unless its caller claimed it
     * already; null for another store. Without it, two stewards built by a library user over two
     * journals and one folder, or one store under their own claim, would delete each other's
     * snapshots and then refuse to restart.
     *
     * @throws StewardStartException {@code SNAPSHOT_REFUSED} ({@code IN_USE} naming the folder) if
     *     another steward holds it or was built over this store and is open; the journal is closed
     */
    private @Nullable SnapshotFolderHold claimSnapshotFolder(Journal j) {
      if (!(snapshots instanceof FileSnapshotStore folder)) {
        return null;
      }
      try {
        return folder.claimForSteward(j);
      } catch (SnapshotException e) {
        throw snapshotsRefused(j, e);
      }
    }

    /**
     * The start's refusal when its snapshot store refuses ({@code SNAPSHOT_REFUSED}, carrying
     * {@code e}), saying what the operator can do; closes the journal.
     */
    private StewardStartException snapshotsRefused(Journal j, SnapshotException e) {
      letGo(j);
      String store = Objects.requireNonNull(snapshots).describe();
      // Removing the snapshot is advised only where the journal alone is the whole truth. A store
      // that cannot be read or that another steward holds has no snapshot to remove; one that
      // records history the journal lacks is the only witness of what was spent since the
      // journal's copy was taken, so removing it would let that be spent again; another
      // steward's snapshot is theirs.
      String why =
          switch (e.reason()) {
            case IO ->
                ": its snapshots in " + store + " cannot be read, so the steward does not start: ";
            case IN_USE ->
                ": its snapshot folder is another steward's, so this one does not start: ";
            case AHEAD_OF_JOURNAL, NOT_IN_JOURNAL ->
                ": the latest snapshot in "
                    + store
                    + " records a history this journal does not hold, so the steward does not"
                    + " start. If the journal was restored from an older copy, put back the journal"
                    + " this snapshot goes with: removing the snapshot instead would let"
                    + " presentations and budget spent since that copy be spent again. If the"
                    + " snapshot is another journal's, give each journal a snapshot store of its"
                    + " own: ";
            case OTHER_STEWARD ->
                ": the latest snapshot in "
                    + store
                    + " is another steward's, so this one does not start. If this journal is"
                    + " that steward's, start with the key that wrote it; if its snapshots"
                    + " share this store with another steward's, give each steward a snapshot"
                    + " store of its own (do not remove that steward's snapshot): ";
            default ->
                ": the latest snapshot in "
                    + store
                    + " is refused, so the steward does not start from it (remove it to replay the"
                    + " whole journal instead): ";
          };
      return new StewardStartException(
          "journal " + j.describe() + why + e.getMessage(),
          new JournalException(
              JournalException.Reason.SNAPSHOT_REFUSED, String.valueOf(e.getMessage()), e));
    }

    /**
     * Closes {@code j}, the journal this build claimed, unless the build let it go already: each
     * refusal lets it go as it refuses, and {@link #build()} lets it go on every other throw.
     */
    private void letGo(Journal j) {
      if (!journalLetGo) {
        journalLetGo = true;
        j.close();
      }
    }

    /** Recovers the claimed journal {@code j} and starts the steward over it. */
    private Steward start(Journal j, Router router) {
      if (snapshots != null) {
        try {
          j.position();
        } catch (UnsupportedOperationException e) {
          letGo(j);
          throw new IllegalArgumentException(
              "snapshots need a journal that reports its position; " + e.getMessage(), e);
        }
      }
      Recovered rec;
      try {
        try {
          rec = recover(j);
        } finally {
          // The snapshot is read in place: a fault compiled code held back is thrown here, inside
          // the catch below, not at some later read of the steward's.
          MappedReadFault.deliverPending();
        }
      } catch (JournalException e) {
        letGo(j);
        throw new StewardStartException(
            "journal " + j.describe() + " cannot be replayed: " + e.getMessage(), e);
      } catch (SnapshotException e) {
        throw snapshotsRefused(j, e);
      } catch (InternalError e) {
        if (!MappedReadFault.in(e)) {
          throw e;
        }
        // The latest snapshot, mapped, was cut short (rewritten in place) as this start read it.
        throw snapshotsRefused(
            j,
            new SnapshotException(
                SnapshotException.Reason.IO,
                "the latest snapshot was cut short on disk while this start read it in place ("
                    + e.getMessage()
                    + "); put the whole file back, or remove the cut one so that the next start"
                    + " replays the journal (SPEC.md 60.8, \"Reading in place\")",
                e));
      }
      JournalReplay.Result replayed = rec.state().result();
      Gate gate = rec.state().gate();
      ChainHead start = head != null ? head : ChainHead.GENESIS;
      if (replayed.lastSealed().isPresent()) {
        if (head != null) {
          letGo(j);
          throw new ChainHeadConflictException(
              head, j.describe(), replayed.lastSealed().get().sequence());
        }
        RecordedReceipt last = replayed.lastSealed().get();
        start = new ChainHead(last.sequence() + 1, Optional.of(last.envelopeId()));
      } else if (head == null && !ephemeral) {
        letGo(j);
        throw new UnknownChainHeadException(identity(), j.describe());
      }
      LogKeeper keeper =
          transparencyLog
              ? rec.log().finish(start, j, checkpointEvery, heldFaults)
              : new LogKeeper.Off(
                  new SealedIndex(replayed.receipts(), start.nextSequence()), heldFaults);
      Optional<Snapshotter> snapshotter = Optional.empty();
      if (snapshots != null) {
        snapshotter =
            Optional.of(
                new Snapshotter(
                    key,
                    j,
                    snapshots,
                    snapshotEvery,
                    snapshotInterval,
                    rec.loaded().orElseGet(() -> rec.state().capture(-1)),
                    rec.fromSnapshot(),
                    keeper,
                    heldFaults,
                    snapshotWorker.get()));
      }
      // Discovered last, once nothing else can refuse the build: a probe burns a core.
      MeterLease lease =
          meter != null
              ? null
              : MeterDiscovery.lease(
                  discoveryOptions != null ? discoveryOptions : DiscoveryOptions.defaults());
      try {
        Steward steward =
            new Steward(this, router, replayed, gate, start, keeper, snapshotter, lease);
        built = true;
        return steward;
      } catch (RuntimeException | Error e) {
        // An Error too (an engine's bound read as an AssertionError, the heap gone): the caller,
        // handed no steward, could not stop the snapshotter's thread or let the meter's lease go.
        try {
          snapshotter.ifPresent(Snapshotter::discard);
          letGo(j);
        } finally {
          if (lease != null) {
            lease.close(); // a steward that never started holds no share of the meter
          }
        }
        throw e;
      }
    }

    /** What recovery rebuilt: the replayed state, the log, and the snapshot's position (or 0). */
    private record Recovered(
        ReplayState state,
        LogKeeper.Rebuilder log,
        long fromSnapshot,
        Optional<org.meshjava.journal.SnapshotState> loaded) {}

    /**
     * Rebuilds the state from the latest snapshot, if one is kept, and the records after it,
     * streaming them (a batch at a time, so signatures are checked in parallel) and keeping none.
     */
    private Recovered recover(Journal j) throws JournalException, SnapshotException {
      DidKey self = DidKey.of(key.verificationKey());
      LogKeeper.Rebuilder log = new LogKeeper.Rebuilder(key, witnesses);
      ReplayState state;
      long from = 0;
      Optional<org.meshjava.journal.SnapshotState> loaded = Optional.empty();
      // Read in place (a file store maps the file): a restart touches no fresh memory in
      // proportion to the snapshot.
      Optional<java.nio.ByteBuffer> latest = Optional.empty();
      SnapshotException unreadable = null;
      org.meshjava.journal.SnapshotHeader header = null;
      try {
        latest = snapshots == null ? Optional.empty() : snapshots.latestBuffer();
      } catch (SnapshotException e) {
        if (e.reason() != SnapshotException.Reason.TOO_LARGE) {
          throw e;
        }
        // Too large to read is no sign of tampering (SPEC.md §60.8, "Size"): the steward starts
        // from the whole journal, which holds what the snapshot does, rather than not at all.
        unreadable = e;
        LOG.warn(
            "journal {}: replaying it whole, since the latest snapshot cannot be read: {}",
            j.describe(),
            e.getMessage());
        // Its header still says what history it covers: a journal restored from an older copy
        // beside it is refused as a start from the snapshot refuses it (unsigned, see
        // SnapshotHeader: a refusal here is one the snapshot itself would have met).
        header = Objects.requireNonNull(snapshots).latestHeader().orElse(null);
        if (header != null) {
          header.checkAgainst(self, j.position());
        }
      }
      if (latest.isPresent()) {
        Snapshot snap = Snapshot.open(latest.get(), self);
        snap.checkAgainst(j.position());
        if (snap.position().count() <= checkRecordsBeforeSnapshot) {
          checkRecordsBefore(j, snap.position().count());
        }
        // At any size: whether the first segments are gone is a listing, not a read of history.
        j.warnFirstSegmentsMissingBefore(snap.position().count());
        state = ReplayState.restore(snap.state(), snap.gate(revocations));
        log.seed(snap.state().receipts(), snap.tree(), snap.state().checkpoint());
        from = snap.position().count();
        loaded = Optional.of(snap.state());
      } else {
        state = ReplayState.fresh(Gate.create(self, SpendLedger.inMemory(), revocations));
      }
      List<org.meshjava.journal.JournalRecord> batch = new ArrayList<>(RECOVERY_BATCH);
      org.meshjava.journal.SnapshotHeader covered = header;
      try {
        j.read(
            state.position(),
            state.chains(),
            r -> {
              if (covered != null) {
                try {
                  covered.checkRecordAfter(r);
                } catch (SnapshotException e) {
                  throw new JournalException(
                      JournalException.Reason.SNAPSHOT_REFUSED, String.valueOf(e.getMessage()), e);
                }
              }
              batch.add(r);
              if (batch.size() == RECOVERY_BATCH) {
                flush(state, log, batch);
              }
            });
      } catch (JournalException e) {
        if (covered != null && e.getCause() instanceof SnapshotException refused) {
          throw refused; // the header's position is not in this journal
        }
        if (from > 0 && e.reason() == JournalException.Reason.POSITION_MISMATCH) {
          throw new SnapshotException(
              SnapshotException.Reason.NOT_IN_JOURNAL, String.valueOf(e.getMessage()), e);
        }
        if (unreadable != null && e.reason() == JournalException.Reason.ARCHIVED) {
          throw new JournalException(
              JournalException.Reason.ARCHIVED,
              "the latest snapshot is too large to read, and the records before it were archived;"
                  + " put the journal's segments back to replay them ("
                  + unreadable.getMessage()
                  + "): "
                  + e.getMessage(),
              e);
        }
        throw e;
      }
      flush(state, log, batch);
      return new Recovered(state, log, from, loaded);
    }

    /**
     * Checks that the journal's first {@code count} records, which a snapshot covers, still form
     * one chain (§2.2), when they are all held (not archived without their segments). Only their
     * encoding and {@code prev} links are read, not replayed: the state is the snapshot's. The link
     * from the last of them to the records after is checked by the snapshot's position (SPEC 60.8).
     */
    private static void checkRecordsBefore(Journal j, long count) throws JournalException {
      if (count == 0) {
        return;
      }
      try {
        j.read(
            org.meshjava.journal.JournalPosition.GENESIS,
            new java.util.HashMap<>(),
            r -> {
              if (r.seq() == count - 1) {
                throw new CoveredRecordsRead();
              }
            });
      } catch (CoveredRecordsRead read) {
        // Every record up to the snapshot's position was read and chains.
      } catch (JournalException e) {
        if (e.reason() != JournalException.Reason.ARCHIVED) {
          throw e;
        }
        // The segments are gone, but the records the live file holds before the position are
        // there to check: skipping them let an edit there start (SPEC.md §60.8).
        j.checkHeldLinksBefore(count);
      }
    }

    /** Stops {@link #checkRecordsBefore}'s read at the snapshot's position; no stack trace. */
    private static final class CoveredRecordsRead extends RuntimeException {
      @java.io.Serial private static final long serialVersionUID = 1L;

      CoveredRecordsRead() {
        super(null, null, false, false);
      }
    }

    private static void flush(
        ReplayState state, LogKeeper.Rebuilder log, List<org.meshjava.journal.JournalRecord> batch)
        throws JournalException {
      state.applyAll(batch);
      for (org.meshjava.journal.JournalRecord r : batch) {
        log.accept(r);
      }
      batch.clear();
    }
  }
}
