package org.meshjava.steward;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.DenialLabel;
import org.meshjava.journal.JournalException;
import org.meshjava.router.RouteCandidate;

/**
 * Thrown when the steward refuses or cannot complete a serve. Whatever the reason, nothing was
 * sealed and the receipt chain did not advance.
 */
public sealed class ServeException extends Exception
    permits GateDenialException, GrantsSuspendedException, StewardClosedException {
  private static final long serialVersionUID = 1L;

  /** The phase and rule that stopped the serve. Stable; match on it. */
  public enum Reason {
    /** Route: no backend was admissible (§4); {@link #candidates()} says why for each. */
    NO_ADMISSIBLE_BACKEND,
    /**
     * Before routing: the typed questions do not fit the request's decision shape, or the request
     * is not a decision (§3.6).
     */
    QUESTIONS_MISMATCH,
    /**
     * Before routing: the request's {@code prompt_hash} does not address the prompt text it was
     * handed with (§3.1).
     */
    PROMPT_MISMATCH,
    /**
     * After routing: the chosen backend already runs and queues as many serves as it declares
     * ({@link org.meshjava.core.ServingEngine#maxWaitingServes()}); retry later. No grant was
     * decided and nothing was debited.
     */
    BACKEND_BUSY,
    /**
     * After routing, before authorising: the routed engine's payload and the request's output
     * together exceed what the engine can hold ({@link
     * org.meshjava.core.ServingEngine#contextTokens()}). No grant was decided, no work done and
     * nothing debited.
     */
    OVER_CONTEXT,
    /**
     * After routing, before authorising a grant: priced over the payload the routed engine would
     * actually run, rather than the {@code prompt_tokens} the request declares, the serve's
     * estimate exceeds the request's joule ceiling, so its reservation would not cover it (§2, §4).
     * No grant was decided, no work done and nothing debited.
     */
    OVER_CEILING,
    /**
     * Meter: the engine failed. Also an engine that gave up because its serving thread was
     * interrupted (a cancelled {@code Future}, a timeout): the thread still carries its interrupt
     * when this is thrown, which is how a caller tells its own cancellation from a failure (SPEC.md
     * 60.1.2 says why there is no reason of its own for it).
     */
    ENGINE_FAILED,
    /** Meter: the engine's report contradicts the request or itself. */
    INCONSISTENT_OUTCOME,
    /** Meter: the backend reported a delivered fidelity above its rating (§3.2.1). */
    FIDELITY_OVERCLAIM,
    /**
     * Meter: the engine named other weights just before or after the work than when it was chosen
     * and the grant decided (§2).
     */
    WEIGHTS_CHANGED,
    /**
     * Authorise: the presenting caller is not the leaf grant's issuer, or did not sign this request
     * (§2.1).
     */
    NOT_ISSUER,
    /** Authorise: the grant refuses the serve; the denial label says which rule (§2). */
    GRANT_REFUSED,
    /**
     * Authorise: the steward no longer honours grants, having been shown a receipt its journal
     * lacks (§2.2).
     */
    GRANTS_SUSPENDED,
    /**
     * Authorise: the steward's identity outlives the process but its journal does not, so it
     * honours no grant: a restart would give spent budgets and presentations back (§2.2). Ungranted
     * serves go on.
     */
    JOURNAL_NOT_DURABLE,
    /**
     * A decision, debit or receipt could not be recorded in the journal, so the serve was refused
     * (§2.2). Where the journal refused it, the cause is the journal's {@link
     * org.meshjava.journal.JournalException}: {@code CLOSED} when the journal was closed with its
     * steward, any other reason when it failed, and then it records nothing more until the steward
     * is restarted on it, so the same serve asked again is refused again. A serve refused before
     * any work because its steward is closed is a {@link StewardClosedException}: nothing of it was
     * decided, so it may be sent again elsewhere.
     */
    NOT_RECORDED
  }

  private final Reason reason;

  /** The refusal in the words its client may read; see {@link #shown()}. */
  private final @Nullable String shown;

  /** Not serialized (a candidate's {@code Optional} is not serializable); null once read back. */
  private final transient List<RouteCandidate> candidates;

  /**
   * Creates the exception. Its message ({@link #getMessage()}) is the reason and {@code detail},
   * for the operator and the Java caller that embeds the steward: where an engine failed, it keeps
   * the engine's own words, its Java class too where it gave none. What a client reads is {@link
   * #shown()}; here, {@code detail}.
   */
  public ServeException(Reason reason, String detail) {
    this(reason, detail, List.of(), null);
  }

  /** Creates the exception with a cause. */
  public ServeException(Reason reason, String detail, @Nullable Throwable cause) {
    this(reason, detail, List.of(), cause);
  }

  /** Creates the exception with the router's candidates. */
  public ServeException(
      Reason reason, String detail, List<RouteCandidate> candidates, @Nullable Throwable cause) {
    super(reason + ": " + detail, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.shown = String.valueOf(detail);
    this.candidates = List.copyOf(candidates);
  }

  /**
   * For a refusal whose detail says more to the operator than its client may read: {@code shown} is
   * what the client reads instead (for a failed engine, the words it declared for its client, or a
   * reference to the operator's log line: {@code EngineFailureLog}).
   */
  ServeException(Reason reason, String detail, String shown, @Nullable Throwable cause) {
    super(reason + ": " + detail, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.shown = Objects.requireNonNull(shown, "shown");
    this.candidates = List.of();
  }

  /**
   * For a gate's denial: the message opens with the denial label rather than the reason, because
   * the label is the finer of the two. {@link Reason#NOT_ISSUER} also covers a caller that is the
   * issuer but signed another request, and a message opening "NOT_ISSUER" sent such a caller to
   * check its keys when its body had changed after signing.
   */
  ServeException(Reason reason, DenialLabel label, String detail, @Nullable Throwable cause) {
    super(label.wire() + ": " + detail, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.shown = label.wire() + ": " + detail;
    this.candidates = List.of();
  }

  /** Returns why. */
  public Reason reason() {
    return reason;
  }

  /**
   * The refusal in the words a client of the serve may read, which a binding answers with (the HTTP
   * binding's error message, to whoever reaches its listener): the detail without the reason's name
   * before it, which a binding's code already says; a gate's denial keeps its label, the finer of
   * the two. Where an engine failed ({@link Reason#ENGINE_FAILED}), its own words are here only
   * where it declared them its client's ({@link org.meshjava.core.EngineException#clientWords()}):
   * anything else it threw, whose words may name a file, a host, a model or a key, reads as the
   * backend having failed and a reference, under which the steward's log has the whole throw for
   * its operator (SPEC.md 60.10).
   */
  public String shown() {
    // Null only in an exception read back from a form written before this field existed.
    return shown == null ? String.valueOf(getMessage()) : shown;
  }

  /**
   * Whether this serve was refused because its steward's journal failed for good: its cause is the
   * journal's failure, for any reason but the close of the steward (the steward gives that cause to
   * every {@link Reason#NOT_RECORDED} a journal refused). A failed journal takes no append until
   * the steward is restarted on it (SPEC.md 60.2), so the same serve asked again is refused again;
   * the bindings tell their clients not to resend it.
   */
  public boolean journalFailed() {
    return getCause() instanceof JournalException j && j.reason() != JournalException.Reason.CLOSED;
  }

  /**
   * Whether sending the same request again at once cannot be served, so a binding tells its client
   * not to resend it (the HTTP binding's {@code x-should-retry: false}, the LangChain4j binding's
   * non-retriable exceptions). Grants stay suspended, and a journal stays not durable, until an
   * operator acts. A granted serve that failed in or after its engine run was decided first, so its
   * presentation is spent (§2.2): the same bytes again are refused {@code presentation-spent},
   * which would hide why the serve failed. So is one whose journal could not record it, whichever
   * record failed; the journal must be seen to first. And so is any serve, granted or not, refused
   * because its journal failed ({@link #journalFailed()}): every resend meets the same refusal. A
   * journal closed with its steward is not such a failure: what answers at its address next may
   * serve the resend. Nor is a serve refused before any work because its steward was closed ({@link
   * StewardClosedException}): no grant was decided, so even a granted resend may be served by a
   * steward that is running.
   *
   * @param granted whether the serve was asked on a presentation
   */
  public boolean resendFutile(boolean granted) {
    return switch (reason) {
      case GRANTS_SUSPENDED, JOURNAL_NOT_DURABLE -> true;
      case NOT_RECORDED ->
          (granted && !(this instanceof StewardClosedException)) || journalFailed();
      case ENGINE_FAILED, INCONSISTENT_OUTCOME, FIDELITY_OVERCLAIM, WEIGHTS_CHANGED -> granted;
      case PROMPT_MISMATCH,
          QUESTIONS_MISMATCH,
          NO_ADMISSIBLE_BACKEND,
          BACKEND_BUSY,
          OVER_CONTEXT,
          OVER_CEILING,
          NOT_ISSUER,
          GRANT_REFUSED ->
          false;
    };
  }

  /**
   * The backends the router weighed, with reasons; empty unless routing failed, and empty in an
   * exception read back by Java serialization, which does not carry them (the cause's {@code
   * hint()} still says what they showed).
   */
  public List<RouteCandidate> candidates() {
    return candidates == null ? List.of() : candidates;
  }
}
