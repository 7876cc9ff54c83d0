package org.meshjava.steward;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.MappedReadFault;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.receipt.Disclosure;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.Opening;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.receipt.ReceiptException;

/**
 * Re-executes a sealed serve and says what that settles (§6.4). Anyone holding the receipt, the
 * request, the prompt payload and the opening can replay, without the steward.
 *
 * <p>Design note. The verdicts are asymmetric on purpose. A re-run that opens the commitment proves
 * the serve. A re-run that does not open it proves nothing by itself: the replayer may have the
 * wrong payload or opening, and those are inputs the commitment binds. So {@link
 * ReplayVerdict.Diverged} needs a disclosed output that opens the commitment on the very payload
 * and opening the replay ran — then the opening, payload and sealed output are all confirmed, and
 * only the engine's output can differ. Every other mismatch is {@link
 * ReplayVerdict.Reason#UNATTRIBUTABLE_MISMATCH}. The preconditions (a commitment, a deterministic
 * engine, the same backend, recipe, weights and request) are checked before any work is done.
 *
 * <p>A replay meters nothing, seals nothing and touches no steward. Stateless and thread-safe, as
 * far as the engine is.
 */
public final class Replayer {
  private Replayer() {}

  /**
   * Replays the serve {@code serve} describes on {@code engine}, which is held to the receipt's
   * backend by its own {@code name()}. An engine registered with a steward is better replayed under
   * the name it was registered, routed and sealed under ({@link #replay(ReplayInputs,
   * ServingEngine, String)}, {@link Steward#replay}): its {@code name()} may answer otherwise by
   * now.
   *
   * @param serve the receipt, request, prompt payload, opening and any disclosed output
   * @param engine the engine to re-run on
   * @return exactly one verdict; never throws for a mismatch
   */
  public static ReplayVerdict replay(ReplayInputs serve, ServingEngine engine) {
    Objects.requireNonNull(engine, "engine");
    return replay(
        serve,
        engine,
        () -> ask("its name", engine::name, MappedReadFault::deliverPending),
        Duration.ZERO,
        null,
        MappedReadFault::deliverPending);
  }

  /**
   * Replays the serve {@code serve} describes on {@code engine}, registered under {@code
   * backendName}: the name a steward routed and sealed it under ({@link Steward#backendName}),
   * which the receipt's backend must equal. The engine's {@code name()} is not asked: an engine
   * whose name changes after it is registered (one naming itself after the model it loaded) is
   * still the backend the receipt names.
   *
   * @param serve the receipt, request, prompt payload, opening and any disclosed output
   * @param engine the engine to re-run on
   * @param backendName the name {@code engine} is registered under
   * @return exactly one verdict; never throws for a mismatch
   */
  public static ReplayVerdict replay(ReplayInputs serve, ServingEngine engine, String backendName) {
    Objects.requireNonNull(backendName, "backendName");
    return replay(
        serve, engine, () -> backendName, Duration.ZERO, null, MappedReadFault::deliverPending);
  }

  /**
   * As {@link #replay(ReplayInputs, ServingEngine, String)}, the re-serve bounded by {@code
   * deadline} (zero: none), a steward's engine deadline: an engine that has not returned by then is
   * the {@code ENGINE_FAILED} verdict, its thread interrupted and what it returns later dropped.
   *
   * @param heldFaults run last in the re-serve's region, on the thread that ran the engine, as in a
   *     serve's ({@code Steward.Builder.heldFaults}: {@link MappedReadFault#deliverPending}, or a
   *     test's stand-in)
   */
  static ReplayVerdict replay(
      ReplayInputs serve,
      ServingEngine engine,
      String backendName,
      Duration deadline,
      SlotTaker slot,
      Runnable heldFaults) {
    Objects.requireNonNull(backendName, "backendName");
    Objects.requireNonNull(deadline, "deadline");
    Objects.requireNonNull(slot, "slot");
    Objects.requireNonNull(heldFaults, "heldFaults");
    return replay(serve, engine, () -> backendName, deadline, slot, heldFaults);
  }

  /**
   * Where a steward's replay takes a slot on its backend before the re-serve, as a serve does
   * ({@link BackendSlots}): a re-serve beside serves is work the backend runs at once with them.
   */
  @FunctionalInterface
  interface SlotTaker {
    /**
     * Takes a slot on the backend, or refuses.
     *
     * @throws ServeException {@code BACKEND_BUSY} when the backend has no slot free
     */
    BackendSlots.Held take() throws ServeException;
  }

  /** Where a replay reads the backend's name: the registry's, or the engine's own. */
  @FunctionalInterface
  private interface BackendName {
    String get() throws EngineAskFailed;
  }

  private static ReplayVerdict replay(
      ReplayInputs serve,
      ServingEngine engine,
      BackendName name,
      Duration deadline,
      @Nullable SlotTaker slot,
      Runnable heldFaults) {
    Objects.requireNonNull(serve, "serve");
    Objects.requireNonNull(engine, "engine");
    try {
      return replayAsking(serve, engine, name, deadline, slot, heldFaults);
    } catch (EngineAskFailed e) {
      return notReplayable(ReplayVerdict.Reason.ENGINE_FAILED, e.detail);
    }
  }

  private static ReplayVerdict replayAsking(
      ReplayInputs serve,
      ServingEngine engine,
      BackendName backendName,
      Duration deadline,
      @Nullable SlotTaker slot,
      Runnable heldFaults)
      throws EngineAskFailed {
    MeshReceipt receipt = serve.receipt();
    ServeRequest request = serve.request();
    TokenSequence prompt = serve.prompt();
    Opening opening = serve.opening();
    Optional<Disclosure> disclosed = serve.disclosed();
    Optional<ContentId> commitment = receipt.outputCommitment();
    if (commitment.isEmpty()) {
      return notReplayable(
          ReplayVerdict.Reason.NO_COMMITMENT,
          receipt.isDecision()
              ? "a typed decision carries no output commitment"
              : "the receipt carries no output commitment");
    }
    String name = backendName.get();
    if (!ask("whether it is deterministic", engine::deterministic, heldFaults)) {
      return notReplayable(
          ReplayVerdict.Reason.SAMPLING_ENGINE,
          "backend " + name + " does not declare itself deterministic");
    }
    String recipe = ask("its recipe", () -> engine.recipe().name(), heldFaults);
    if (!name.equals(receipt.backend()) || !recipe.equals(receipt.recipe())) {
      return notReplayable(
          ReplayVerdict.Reason.OTHER_BACKEND,
          "the receipt names "
              + receipt.backend()
              + "/"
              + receipt.recipe()
              + ", the engine is "
              + name
              + "/"
              + recipe);
    }
    Optional<String> otherWeights = otherWeights(receipt, engine, heldFaults);
    if (otherWeights.isPresent()) {
      return notReplayable(ReplayVerdict.Reason.OTHER_WEIGHTS, otherWeights.get());
    }
    // Encoded once, and re-served through the form a steward serves with, so an engine that reads
    // the id handed with the request (the reference engine seeds on it) re-serves as it served.
    IdentifiedRequest identified = IdentifiedRequest.of(request);
    ContentId requestId = identified.id();
    if (!requestId.equals(receipt.requestId())) {
      return notReplayable(
          ReplayVerdict.Reason.OTHER_REQUEST,
          "the receipt is for request " + receipt.requestId() + ", not " + requestId);
    }
    BackendSlots.@Nullable Held held = null;
    if (slot != null) {
      try {
        held = slot.take();
      } catch (ServeException busy) {
        // Taken after rows 1 to 5, so a receipt that cannot be replayed says why whatever the
        // backend is doing; a busy backend is refused as a serve on it would be.
        return notReplayable(
            ReplayVerdict.Reason.ENGINE_FAILED,
            "backend " + name + " could not re-serve: " + busy.getMessage());
      }
    }
    TokenSequence rerun;
    try {
      EngineResult result = reServe(engine, identified, prompt, deadline, held, heldFaults);
      if (result == null) {
        // As a serve's engine that returns no result is refused: in words, not the JVM's about a
        // null dereference inside this class.
        return notReplayable(
            ReplayVerdict.Reason.ENGINE_FAILED,
            "backend " + name + " failed to re-serve: it returned no result (null)");
      }
      rerun = Objects.requireNonNull(result.tokens(), "tokens");
    } catch (EngineDeadline.Overrun e) {
      return notReplayable(
          ReplayVerdict.Reason.ENGINE_FAILED,
          "backend " + name + " failed to re-serve: " + e.getMessage());
    } catch (EngineException | RuntimeException | Error e) {
      JvmFailure.passIfFailing(e);
      // In the words a serve's refusal gives (Metering#why): a throw with no message, or a blank
      // one, is named by its class, never left as "failed to re-serve: ".
      return notReplayable(
          ReplayVerdict.Reason.ENGINE_FAILED,
          "backend " + name + " failed to re-serve: " + Metering.why(e));
    }
    // The weights must also hold across the re-run, as they must across a serve (§2).
    otherWeights = otherWeights(receipt, engine, heldFaults);
    if (otherWeights.isPresent()) {
      return notReplayable(ReplayVerdict.Reason.OTHER_WEIGHTS, otherWeights.get());
    }
    ContentId payload = OutputCommitment.payloadDigest(prompt);
    if (OutputCommitment.commit(opening, requestId, payload, rerun).equals(commitment.get())) {
      return new ReplayVerdict.Verified();
    }
    if (disclosed.isPresent() && opensOnReplayInputs(disclosed.get(), receipt, opening, payload)) {
      TokenSequence sealed = disclosed.get().tokens();
      return new ReplayVerdict.Diverged(firstDifference(sealed, rerun), sealed, rerun);
    }
    return notReplayable(
        ReplayVerdict.Reason.UNATTRIBUTABLE_MISMATCH,
        disclosed.isPresent()
            ? "the re-run does not open the commitment, and the disclosed output does not open it"
                + " on the replay's payload and opening"
            : "the re-run does not open the commitment, and no output was disclosed");
  }

  /**
   * The engine's re-serve: on this thread where there is no deadline; else on a daemon thread of
   * its own, waited for at most {@code deadline}. Without it, a steward's replay of an engine that
   * hung waited for good, though its serves are bounded by the same deadline. {@code held}, the
   * steward's slot on the backend (none without a steward), is let go when the engine returns.
   */
  private static @Nullable EngineResult reServe(
      ServingEngine engine,
      IdentifiedRequest request,
      TokenSequence prompt,
      Duration deadline,
      BackendSlots.@Nullable Held held,
      Runnable heldFaults)
      throws EngineException, EngineDeadline.Overrun {
    if (deadline.isZero()) {
      try {
        return reServed(engine, request, prompt, heldFaults);
      } finally {
        if (held != null) {
          held.close();
        }
      }
    }
    CompletableFuture<@Nullable EngineResult> done = new CompletableFuture<>();
    Thread reServing;
    try {
      reServing = startReServing(engine, request, prompt, held, heldFaults, done);
    } catch (RuntimeException | Error noThread) {
      // No thread could be made (out of memory): the engine never ran, so the slot is let go here.
      if (held != null) {
        held.close();
      }
      throw noThread;
    }
    try {
      return done.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException late) {
      if (held != null) {
        held.handOff();
      }
      reServing.interrupt();
      throw new EngineDeadline.Overrun(deadline);
    } catch (InterruptedException e) {
      if (held != null) {
        held.handOff();
      }
      reServing.interrupt();
      Thread.currentThread().interrupt();
      throw new EngineException("the replay was interrupted while it waited for the engine");
    } catch (ExecutionException e) {
      throw rethrown(e.getCause());
    }
  }

  /**
   * The engine's re-serve, on the thread that runs it, its region ended with {@code heldFaults} as
   * a serve's is ({@code Metering}, {@code EngineDeadline.Call.run}): a fault of a mapped read (its
   * weights cut short on disk) that its compiled code held back is thrown here and is the replay's
   * {@code ENGINE_FAILED} verdict, the engine's own throw over the garbage read suppressed on it;
   * past here it would be thrown at the thread's next safepoint poll, raw, and the replay would
   * have judged the faulted run.
   */
  private static @Nullable EngineResult reServed(
      ServingEngine engine, IdentifiedRequest request, TokenSequence prompt, Runnable heldFaults)
      throws EngineException {
    EngineResult result;
    try {
      result = engine.serve(request, prompt);
    } catch (Throwable e) {
      throw rethrown(MappedReadFault.afterThrow(e, heldFaults));
    }
    heldFaults.run();
    return result;
  }

  /**
   * Throws {@code thrown} as the engine threw it, an {@link EngineException} or unchecked; anything
   * else (a checked exception thrown around the compiler) is returned wrapped, for the caller to
   * throw.
   */
  private static IllegalStateException rethrown(@Nullable Throwable thrown) throws EngineException {
    if (thrown instanceof EngineException x) {
      throw x;
    }
    if (thrown instanceof RuntimeException x) {
      throw x;
    }
    if (thrown instanceof Error x) {
      throw x;
    }
    return new IllegalStateException(thrown);
  }

  /** Starts the thread that re-serves and hands what the engine did to {@code done}. */
  private static Thread startReServing(
      ServingEngine engine,
      IdentifiedRequest request,
      TokenSequence prompt,
      BackendSlots.@Nullable Held held,
      Runnable heldFaults,
      CompletableFuture<@Nullable EngineResult> done) {
    return Thread.ofPlatform()
        .daemon()
        .name("mesh-replay")
        .start(
            () -> {
              EngineResult result = null;
              Throwable thrown = null;
              try {
                result = reServed(engine, request, prompt, heldFaults);
              } catch (Throwable e) {
                thrown = e;
              } finally {
                // The slot is let go when the engine returns, not when the replay stops
                // waiting: an engine that hangs holds it, as an overrun serve's does, so
                // replays of a stuck backend cannot pile up a thread each.
                if (held != null) {
                  held.handOff().run();
                }
              }
              if (thrown == null) {
                done.complete(result);
              } else {
                done.completeExceptionally(thrown);
              }
            });
  }

  private static Optional<String> otherWeights(
      MeshReceipt receipt, ServingEngine engine, Runnable heldFaults) throws EngineAskFailed {
    if (receipt.weights().isEmpty()) {
      // Bound by name alone: the weaker basis, and all a replay can hold the engine to.
      return Optional.empty();
    }
    Optional<WeightsBinding> now = ask("its weights", engine::weights, heldFaults);
    if (!now.equals(receipt.weights())) {
      return Optional.of(
          "the receipt sealed weights "
              + describe(receipt.weights())
              + ", the engine runs "
              + describe(now));
    }
    return Optional.empty();
  }

  /**
   * Asks the engine {@code what}: its own code, so a throw or a null answer is the engine failing,
   * the replay's {@code ENGINE_FAILED} verdict, never an exception past the replay. The question's
   * region ends with {@code heldFaults}, as a serve's questions do ({@link EngineAnswer}), so a
   * fault of a mapped read its answer held back is that verdict too, never left to the engine's
   * next call or thrown later, raw. The JVM failing passes as it is ({@link JvmFailure}).
   */
  private static <T> T ask(String what, Supplier<T> question, Runnable heldFaults)
      throws EngineAskFailed {
    try {
      T answer = Objects.requireNonNull(question.get(), what);
      // Last in the region, as a serve's questions end theirs (EngineAnswer): a fault of a mapped
      // read the engine's compiled code held back is the verdict here, not thrown later and raw.
      heldFaults.run();
      return answer;
    } catch (RuntimeException | Error e) {
      Throwable failed = MappedReadFault.afterThrow(e, heldFaults);
      JvmFailure.passIfFailing(failed);
      throw new EngineAskFailed(
          "the engine failed while asked "
              + what
              + ": "
              + (MappedReadFault.in(failed)
                  ? Metering.why(failed)
                  : ThrowableWords.describe(failed)));
    }
  }

  /** An engine that threw when asked something, carried to the replay's verdict. */
  private static final class EngineAskFailed extends Exception {
    private static final long serialVersionUID = 1L;

    private final String detail;

    EngineAskFailed(String detail) {
      super(detail, null, false, false);
      this.detail = detail;
    }
  }

  private static boolean opensOnReplayInputs(
      Disclosure d, MeshReceipt receipt, Opening opening, ContentId payload) {
    if (!d.opening().equals(opening) || !d.payloadDigest().equals(payload)) {
      return false;
    }
    try {
      d.verify(receipt);
      return true;
    } catch (ReceiptException e) {
      return false;
    }
  }

  /** The first index at which the two differ; the shorter length if one is a prefix. */
  static int firstDifference(TokenSequence a, TokenSequence b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      if (a.get(i) != b.get(i)) {
        return i;
      }
    }
    return n;
  }

  private static String describe(Optional<WeightsBinding> w) {
    return w.map(b -> b.digest() + "/" + b.precision()).orElse("(none)");
  }

  private static ReplayVerdict notReplayable(ReplayVerdict.Reason reason, String detail) {
    return new ReplayVerdict.NotReplayable(reason, detail);
  }
}
