package org.meshjava.steward;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.EngineException;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.OperatorText;
import org.meshjava.core.internal.ThrowableWords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule for what the client of a failed serve reads of its engine's failure, and where its
 * operator reads the rest (SPEC.md 60.10). An engine's exception may name a file, a model, a host,
 * or a URL with a key in it, and a binding's client may be anyone who reaches its listener, so:
 *
 * <ul>
 *   <li>words the engine declared for its client ({@link EngineException#clientWords()}) reach the
 *       client, as the engine wrote them;
 *   <li>anything else reaches the client as {@link #LOGGED} and a reference, a fresh random number
 *       (never anything of the serve's, so it gives nothing away), and the whole throw, its stack
 *       too, goes to the operator's log with the same reference.
 * </ul>
 *
 * <p>An engine that fails mostly does so for every request, so the log says it with its stack at
 * WARN at most once per backend a {@link #WARN_EVERY} ({@link WarnLimit}), and each of the others
 * in one INFO line, its words and reference without the stack (that at DEBUG): the client is told
 * its engine's words are in the log under its reference, and at the default level (INFO) they are,
 * for every failure, never only for the one a minute the WARN is for. One log serves the process
 * ({@link #SHARED}): its limit is keyed by the backend's name. The exception's message ({@link
 * ServeException#getMessage()}) keeps the engine's words for the embedder. Thread-safe.
 */
final class EngineFailureLog {
  private static final Logger LOG = LoggerFactory.getLogger(EngineFailureLog.class);

  /** The least time between two WARNs for one backend's failures. */
  static final Duration WARN_EVERY = Duration.ofMinutes(1);

  /** What the client reads for a failure whose words are the operator's, before the reference. */
  static final String LOGGED = "its own words are in the server's log, under reference ";

  /** The log every steward of the process writes to. */
  static final EngineFailureLog SHARED = new EngineFailureLog(System::nanoTime);

  private final WarnLimit warnings;

  /** With {@code nanoTime} as the monotonic time the gap between WARNs is counted in (tests). */
  EngineFailureLog(LongSupplier nanoTime) {
    this.warnings = new WarnLimit(WARN_EVERY, nanoTime);
  }

  /**
   * The {@code ENGINE_FAILED} refusal of {@code backend}'s failure {@code e}: its message {@code
   * failed + operators}, what the client reads {@code failed} and either the engine's declared
   * words or {@link #LOGGED} and the reference under which {@code e} is logged here.
   *
   * @param failed how the refusal opens, in the steward's words ("backend ref failed: ")
   * @param operators the engine's words for its operator and embedder
   */
  ServeException refusal(RoutedBackend backend, String failed, String operators, Throwable e) {
    Optional<String> declared = clientWordsOf(e);
    String shown;
    if (declared.isPresent()) {
      shown = failed + declared.get();
      String line = OperatorText.oneLine(failed + operators);
      ThrowableWords.log(
          e,
          thrown -> LOG.debug("{} (declared its client's)", line, thrown),
          name -> LOG.debug("{} (declared its client's; {} did not print)", line, name));
    } else {
      String reference = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
      log(backend.name(), reference, failed + operators, e);
      shown = failed + LOGGED + reference;
    }
    return new ServeException(ServeException.Reason.ENGINE_FAILED, failed + operators, shown, e);
  }

  /**
   * Logs {@code e} under {@code reference}: its words and stack at WARN if {@code backend}'s turn,
   * else its words in one INFO line and its stack at DEBUG. A throwable that cannot be printed (its
   * {@code toString} throws: it is the engine's code) is logged by its class's name ({@link
   * ThrowableWords#log}), never a throw out of here.
   */
  void log(String backend, String reference, String words, Throwable e) {
    String line = OperatorText.oneLine(words);
    if (warnings.warnNow(backend)) {
      String note =
          "; its failures in the next minute are logged at info, one line each, their stacks at"
              + " debug";
      ThrowableWords.log(
          e,
          thrown -> LOG.warn("{} (reference {}{})", line, reference, note, thrown),
          name -> LOG.warn("{} (reference {}{}; {} did not print)", line, reference, note, name));
    } else {
      // The client was told its engine's words are in the log under this reference: at the
      // default level they are, in one line; the stack, which repeats the WARN's, is not.
      LOG.info("{} (reference {})", line, reference);
      if (LOG.isDebugEnabled()) {
        ThrowableWords.log(
            e,
            thrown -> LOG.debug("the stack of reference {}", reference, thrown),
            name -> LOG.debug("the stack of reference {}: {} did not print", reference, name));
      }
    }
  }

  /**
   * The words {@code e} declared for its client: an {@link EngineException}'s own, or those of the
   * first cause past wrappers made without words of their own ({@code new RuntimeException(cause)},
   * whose message is Java's {@code toString} of the cause), at most 16 deep; empty otherwise.
   */
  static Optional<String> clientWordsOf(Throwable e) {
    Throwable at = e;
    for (int depth = 0; depth < 16; depth++) {
      if (at instanceof EngineException engines) {
        return declared(engines);
      }
      @Nullable Throwable cause = ThrowableWords.causeOf(at);
      @Nullable String message = ThrowableWords.messageOf(at);
      if (cause == null || cause == at || !ThrowableWords.describe(cause).equals(message)) {
        return Optional.empty();
      }
      at = cause;
    }
    return Optional.empty();
  }

  /** {@code e}'s declared words; none where asking throws (a subclass computes them). */
  private static Optional<String> declared(EngineException e) {
    try {
      Optional<String> words = e.clientWords();
      return words == null ? Optional.empty() : words.filter(w -> !w.isBlank());
    } catch (RuntimeException | Error thrown) {
      JvmFailure.passIfFailing(thrown);
      return Optional.empty();
    }
  }
}
