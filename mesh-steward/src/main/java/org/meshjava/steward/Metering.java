package org.meshjava.steward;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.EngineException;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.MappedReadFault;
import org.meshjava.core.internal.ThrowableWords;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;
import org.meshjava.router.RouteDecision;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meter phase (§2 phase 3): the engine call, with the meter's window around it and nothing
 * else, and the weights the engine names checked against the binding the grant was decided over,
 * before and after (§2). Every figure it reads is {@linkplain Settlement#charge charged} to the
 * serve's settlement as soon as it is known, so whatever ends the serve, the settlement debits what
 * was metered.
 */
final class Metering {
  private static final Logger LOG = LoggerFactory.getLogger(Metering.class);
  private final EnergyMeter meter;
  private final EngineDeadline deadline;
  private final Runnable heldFaults;

  /**
   * @param heldFaults run last in the engine call's guarded region, on the serving thread: it
   *     throws any fault of a mapped read the engine's compiled code held back ({@link
   *     MappedReadFault#deliverPending}; a test's stand-in otherwise)
   */
  Metering(EnergyMeter meter, EngineDeadline deadline, Runnable heldFaults) {
    this.meter = Objects.requireNonNull(meter, "meter");
    this.deadline = Objects.requireNonNull(deadline, "deadline");
    this.heldFaults = Objects.requireNonNull(heldFaults, "heldFaults");
  }

  /**
   * Runs {@code ask} on the routed engine inside a metering window.
   *
   * @param bound the weights binding read when the serve was authorised
   * @param slot the serve's backend slot, kept by an engine that overruns its deadline until it
   *     returns
   * @throws ServeException {@code WEIGHTS_CHANGED} when the engine names other weights before the
   *     work (nothing is charged: no work ran) or after it (the metered figure is charged); {@code
   *     ENGINE_FAILED} when the engine throws, with what was metered up to it charged, or does not
   *     return within the deadline, with the request's ceiling charged
   * @throws VirtualMachineError the JVM failing in the engine's work ({@link JvmFailure}), as it
   *     was thrown, once what was metered up to it is charged
   */
  Metered run(
      Ask ask,
      RouteDecision route,
      IdentifiedRequest identified,
      TokenSequence payload,
      Optional<WeightsBinding> bound,
      Settlement settlement,
      BackendSlots.Held slot)
      throws ServeException {
    ServeRequest request = identified.request();
    RoutedBackend backend = RoutedBackend.of(route, heldFaults);
    ServingEngine engine = backend.engine();
    Optional<WeightsBinding> before;
    try {
      before = weightsOf(backend);
    } catch (ServeException | VirtualMachineError e) {
      // No work ran: nothing to debit. Left uncharged, the settlement would debit the ceiling.
      settlement.charge(Energy.estimated(0));
      throw e;
    }
    if (!before.equals(bound)) {
      // Refused before any work: a granted serve is settled at nothing, so it is not left
      // unresolved at its ceiling.
      settlement.charge(Energy.estimated(0));
      throw weightsChanged(backend, bound, "when chosen", before, "before serving");
    }
    MeterWindow window;
    try {
      Set<EnergyDomain> declared =
          EngineAnswer.of(backend, "name its energy domains", engine::domains);
      if (declared.stream().anyMatch(Objects::isNull)) {
        // The engine's answer, refused as a null answer is (EngineAnswer): handed on, the meter's
        // read of it threw out of the serve as the meter failing.
        throw new ServeException(
            ServeException.Reason.ENGINE_FAILED,
            backend + " failed: it could not name its energy domains: it named a null one");
      }
      // The meter covers the host's CPU packages too (§3.3, HostPackages.cover): the serve's own
      // thread runs there whatever the backend declared.
      window = meter.openServe(declared);
    } catch (ServeException | RuntimeException | Error e) {
      // No work ran: nothing to debit, as for the weights refusal above. Left uncharged, the
      // settlement would debit the whole ceiling, the figure for work nothing metered.
      settlement.charge(Energy.estimated(0));
      throw e;
    }
    Ask.Worked worked;
    long estimate;
    try {
      worked = deadline.run(ask, route, identified, payload, () -> letGo(window, slot));
      // An engine that hands back no result failed as one that throws did, and is settled and its
      // window let go the same way: a window left open shares its domains with every later one
      // on a hardware meter, which then grades them ModelBased.
      if (worked.result() == null) {
        throw EngineException.toClient("it returned no result");
      }
      CostProfile profile = engine.costProfile();
      if (profile == null) {
        // As a question outside the work answered null (EngineAnswer), in words of its own.
        throw EngineException.toClient(
            "it could not name its cost profile: it answered nothing (null)");
      }
      estimate = profile.estimateServed(worked.result().outcome());
      // Last in the region: a fault of a mapped read (its weights) that the engine's compiled code
      // held back is thrown here, inside the guard, and refused as the engine failing; past the
      // catch it would surface raw at the window's close or as a failure to name its weights
      // (SPEC.md §60.8, "When the fault is thrown").
      heldFaults.run();
    } catch (EngineDeadline.Overrun e) {
      throw overran(backend, request, slot, e, settlement);
    } catch (Throwable thrown) {
      // A throw ends the region too: the engine's work may have thrown over garbage its compiled
      // code read (an index out of range, say) with the read's fault still held back, which would
      // otherwise surface past this catch, in the meter's close or raw out of the serve. It is
      // taken here, the engine's throw suppressed on it, as on an engine deadline's thread.
      Throwable e = MappedReadFault.afterThrow(thrown, heldFaults);
      // Anything an engine throws ends here and is settled at what was metered, its window let
      // go, never left reserved. It is refused as the backend failing, a StackOverflowError (its
      // own recursion) and the fault of a read of a file it mapped that was cut short included,
      // except the JVM failing (JvmFailure), which passes as it is once settled, as everywhere
      // else the steward asks an engine something.
      ServeException refusal = engineFailed(backend, request, window, e, settlement);
      JvmFailure.passIfFailing(e);
      throw refusal;
    }
    Energy energy = window.close(estimate);
    settlement.charge(energy);
    Optional<WeightsBinding> after = weightsOf(backend); // the metered figure stays charged
    if (!after.equals(bound)) {
      throw weightsChanged(backend, bound, "before serving", after, "after it");
    }
    return new Metered(worked, energy, after);
  }

  /**
   * The weights {@code engine} names ({@link ServingEngine#weights}), asked before and after each
   * serve. It is the engine's code (a digest read from a file, say), so whatever it throws, an
   * error included, is the backend failing, refused {@code ENGINE_FAILED} as a throw from its work
   * is, never a trace past the serve; only the JVM failing passes as it is ({@link JvmFailure}),
   * the caller settling what it reserved on its way out.
   */
  static Optional<WeightsBinding> weightsOf(RoutedBackend backend) throws ServeException {
    return EngineAnswer.of(backend, "name its weights", backend.engine()::weights);
  }

  /**
   * Charges a serve whose engine failed: the window is closed on the estimate of the prompt the
   * engine was handed, the only work known to have started, so a live counter's reading of what did
   * run is the figure where there is one. Only when the meter cannot give a figure either is the
   * request's ceiling charged, as for a crash, where nothing was metered (§2.2).
   */
  private static ServeException engineFailed(
      RoutedBackend backend,
      ServeRequest request,
      MeterWindow window,
      Throwable e,
      Settlement settlement) {
    Energy spent = Energy.estimated(request.jouleCeilingUj());
    long estimate = -1;
    Throwable letGoFailed = null;
    try {
      estimate =
          backend
              .engine()
              .costProfile()
              .estimateServed(ServeOutcome.greedy(request.promptTokens(), 0));
    } catch (RuntimeException | Error profileFailed) {
      // The engine's own cost profile: the window is still let go, so it shares its domains with
      // no later window. An Error is caught as the engine's own is above: escaping here, it would
      // leave the window open and the serve refused with a trace instead of ENGINE_FAILED.
      if (profileFailed != e) { // an engine may throw one instance everywhere: no self-suppression
        e.addSuppressed(profileFailed);
      }
      try {
        window.abandon();
      } catch (RuntimeException | Error meterFailed) {
        letGoFailed = meterFailed;
        e.addSuppressed(meterFailed);
      }
    }
    if (estimate >= 0) {
      try {
        spent = window.close(estimate);
      } catch (RuntimeException | Error meterFailed) {
        letGoFailed = meterFailed;
        e.addSuppressed(meterFailed);
      }
    }
    settlement.charge(spent);
    if (letGoFailed != null) {
      // The meter is not the backend: the JVM failing as it lets the window go (another meter's
      // read of the counter meeting an OutOfMemoryError) passes, as it does from a close after an
      // engine that served, once the serve is charged; never a refusal blaming the backend.
      JvmFailure.passIfFailing(letGoFailed);
    }
    // The message says what failed, not which Java class did (the cause, kept on the exception,
    // says that), unless the engine's throw has no words: then its class is all there is to say,
    // to the operator. The client reads the engine's words only where it declared them its
    // client's; otherwise a reference to the operator's log line (EngineFailureLog).
    return EngineFailureLog.SHARED.refusal(backend, backend + " failed: ", why(e), e);
  }

  /** The words for a throw that gave none. */
  private static final String NO_REASON = "it gave no reason";

  /**
   * Why the engine failed, in its operator's and embedder's words, said once: an engine that gave
   * no words at all is named by the Java class it threw. The fault of a read of a file it mapped
   * that was cut short is explained here only where nothing else did: the JVM's words for it name
   * no file, so where they are all there is (the fault itself, or an engine's exception that only
   * repeats them) they are put in ours, which say what happened and where the fix lies. An engine
   * that caught the fault and said so in its own words (Jlama does) is quoted as it is, never
   * wrapped in a second account of the same cut. What its client reads is {@link
   * EngineFailureLog}'s.
   */
  static String why(Throwable e) {
    @Nullable InternalError fault = MappedReadFault.among(e);
    String message = ThrowableWords.messageOf(e);
    if ((message == null || message.isBlank()) && fault != null) {
      // An engine that gave no words of its own for a cause the JVM did describe: those are the
      // reason, not "none".
      message = ThrowableWords.messageOf(fault);
    }
    String operators;
    if (message != null && !message.isBlank()) {
      operators = message;
    } else {
      // An engine that gave no words at all (a StackOverflowError, a bare NullPointerException)
      // is named by the class it threw: "no reason" alone leaves its operator nothing to look
      // for.
      operators = "it threw " + e.getClass().getName() + ", and " + NO_REASON;
    }
    if (fault != null && onlyTheJvmsWords(e, fault, operators)) {
      return cutShort(operators);
    }
    return operators;
  }

  /** {@code why} put in our account of a mapped file cut short under the engine. */
  private static String cutShort(String why) {
    return "a file it reads in place (mapped; its weights?) was cut short on disk while it ran ("
        + why
        + "); it needs the whole file back, and a restart if it maps the file only once";
  }

  /**
   * Whether {@code e}'s words are the JVM's for the mapped-read {@code fault} among its causes:
   * {@code e} is that fault, or its message repeats the fault's (an engine that passed it on as
   * {@code "...: " + fault}), or the engine gave none of its own.
   */
  private static boolean onlyTheJvmsWords(Throwable e, @Nullable InternalError fault, String why) {
    if (fault == null) {
      return true;
    }
    String jvms = ThrowableWords.messageOf(fault);
    String own = ThrowableWords.messageOf(e);
    return fault == e
        || own == null
        || own.isBlank()
        || (jvms != null && !jvms.isBlank() && why.contains(jvms));
  }

  /**
   * Settles a serve whose engine did not return within the deadline. Its work goes on, on the
   * engine's own thread, and nothing can tell how far it went or will go, so the request's whole
   * ceiling is charged, as for a crash (§2.2), and the serve is refused: its late result is never
   * sealed. The window stays open while the engine runs (on a hardware meter the domains are still
   * busy, and later windows are graded by that), and the engine's thread lets the window and the
   * backend slot go when it returns; the {@code Overrun} handed the serving thread's hold on both
   * to it.
   */
  private ServeException overran(
      RoutedBackend backend,
      ServeRequest request,
      BackendSlots.Held slot,
      EngineDeadline.Overrun e,
      Settlement settlement) {
    slot.handOff(); // before the serve's own release of it, on its way out
    settlement.charge(Energy.estimated(request.jouleCeilingUj()));
    return new ServeException(
        ServeException.Reason.ENGINE_FAILED,
        backend
            + " failed: "
            + e.getMessage()
            + " ("
            + deadline
            + "); its result, if it comes, is dropped",
        e);
  }

  /**
   * Run on an overrunning engine's thread when it returns: the window and slot are let go. Nobody
   * waits on that thread, so whatever the meter throws ends here as a warning, never as the
   * thread's uncaught exception with the warning lost; its words are read safely ({@link
   * ThrowableWords}), and only the JVM failing passes, once the slot is let go.
   */
  static void letGo(MeterWindow window, BackendSlots.Held slot) {
    try {
      window.abandon();
    } catch (RuntimeException | Error meterFailed) {
      JvmFailure.passIfFailing(meterFailed);
      LOG.warn(
          "letting go of an overrun engine's meter window failed: {}",
          ThrowableWords.describe(meterFailed));
    } finally {
      slot.handOff().run();
    }
  }

  private static ServeException weightsChanged(
      RoutedBackend backend,
      Optional<WeightsBinding> first,
      String when,
      Optional<WeightsBinding> then,
      String later) {
    return new ServeException(
        ServeException.Reason.WEIGHTS_CHANGED,
        backend
            + " named weights "
            + describe(first)
            + " "
            + when
            + " and "
            + describe(then)
            + " "
            + later);
  }

  private static String describe(Optional<WeightsBinding> w) {
    return w.map(b -> b.digest() + "/" + b.precision()).orElse("(none)");
  }
}
