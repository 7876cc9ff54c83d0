package org.meshjava.router;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.MappedReadFault;
import org.meshjava.core.internal.OperatorText;
import org.meshjava.core.internal.ThrowableWords;

/**
 * Cheapest-sufficient routing (§4). For each backend, in registration order, the router computes
 * the estimate ({@link org.meshjava.core.CostProfile#estimate}), admits it when its fidelity meets
 * the floor and its estimate is within the ceiling (and any extra {@link AdmissionRule} agrees),
 * and chooses the admissible backend with the lowest estimate; ties go to the earlier registration.
 * Every backend weighed is recorded as a {@link RouteCandidate}.
 *
 * <p>A backend is also inadmissible for a request over its {@link ServeLimits}: what the engine can
 * serve ({@link ServingEngine#limits()}) under any cap its operator set. Such a request is refused
 * here, before any grant is decided or work done, instead of failing in the engine.
 *
 * <p>Immutable and thread-safe.
 */
public final class Router {
  /** Each kind as a justification names it ("over ceiling"). */
  private static final Map<Inadmissibility.Kind, String> KIND_WORDS = kindWords();

  private final List<ServingEngine> backends;
  // Each backend's name as registered and checked here: routes name it so, whatever its name()
  // answers later (an engine naming itself after the model it has loaded, say).
  private final List<String> names;
  private final Map<String, ServeLimits> caps;

  /**
   * Run last in each backend's judging: it throws there a fault of a mapped read (the weights a
   * rule names, say) that the engine's compiled code held back, so that it refuses that backend
   * (SPEC.md §60.8, "When the fault is thrown"), never surfacing at a later poll past the judging,
   * in another backend's or in the steward's next region, where it would be blamed on that.
   */
  private final Runnable heldFaults;

  /**
   * Creates a router over {@code backends} in registration order.
   *
   * @throws IllegalArgumentException if the list is empty, two backends share a name, or a name is
   *     empty or holds a control character, a line or paragraph separator (U+2028, U+2029), a
   *     format character (a bidirectional override, a zero-width character, U+FEFF) or an unpaired
   *     surrogate
   */
  public Router(List<? extends ServingEngine> backends) {
    this(backends, Map.of());
  }

  /**
   * Creates a router over {@code backends} in registration order, with operator caps by backend
   * name on top of each engine's own limits.
   *
   * @throws IllegalArgumentException as {@link #Router(List)}, or if a cap names no backend
   */
  public Router(List<? extends ServingEngine> backends, Map<String, ServeLimits> caps) {
    this(backends, caps, MappedReadFault::deliverPending);
  }

  /**
   * As {@link #Router(List, Map)}, each backend's judging ending with {@code heldFaults}: {@link
   * MappedReadFault#deliverPending}, or a test's throw of the fault standing in for it (a real one
   * needs compiled code reading a file cut short under it).
   */
  Router(
      List<? extends ServingEngine> backends, Map<String, ServeLimits> caps, Runnable heldFaults) {
    this.heldFaults = Objects.requireNonNull(heldFaults, "heldFaults");
    if (backends.isEmpty()) {
      throw new IllegalArgumentException("a router needs at least one backend");
    }
    Set<String> names = new HashSet<>();
    List<String> registered = new ArrayList<>(backends.size());
    for (ServingEngine b : backends) {
      String name = b.name();
      // The name goes into the one-line justification and the receipt's backend field; refusing
      // it here beats refusing the receipt after the engine has already done the work.
      if (name.isEmpty() || name.codePoints().anyMatch(OperatorText::refused)) {
        throw new IllegalArgumentException(
            "a backend name must be non-empty Unicode text (no unpaired surrogate), without"
                + " control, line-separator or format characters: '"
                + OperatorText.named(name)
                + "'");
      }
      if (!names.add(name)) {
        throw new IllegalArgumentException("two backends are named '" + name + "'");
      }
      registered.add(name);
    }
    for (String capped : caps.keySet()) {
      if (!names.contains(capped)) {
        throw new IllegalArgumentException(
            "a cap is set for '" + capped + "', which is no backend");
      }
    }
    this.backends = List.copyOf(backends);
    this.names = List.copyOf(registered);
    this.caps = Map.copyOf(caps);
  }

  /**
   * What {@code backend} takes: its engine's limits under the operator's cap, if any, found by the
   * name it was registered under (an engine not registered here has no cap).
   */
  public ServeLimits limits(ServingEngine backend) {
    int at = indexOf(backend);
    return at < 0 ? backend.limits() : limits(backend, names.get(at));
  }

  /**
   * The name {@code backend} was registered under, read once when this router was built: what its
   * routes, caps and candidates name it, whatever its {@code name()} answers now.
   *
   * @throws IllegalArgumentException if {@code backend} is not one of {@link #backends()}
   */
  public String name(ServingEngine backend) {
    int at = indexOf(backend);
    if (at < 0) {
      throw new IllegalArgumentException("not a backend of this router");
    }
    return names.get(at);
  }

  /** Where {@code backend}, the engine object itself, is registered; -1 if it is not. */
  private int indexOf(ServingEngine backend) {
    for (int i = 0; i < backends.size(); i++) {
      if (backends.get(i) == backend) {
        return i;
      }
    }
    return -1;
  }

  private ServeLimits limits(ServingEngine backend, String name) {
    ServeLimits cap = caps.get(name);
    return cap == null ? backend.limits() : backend.limits().tighter(cap);
  }

  /** The backends in registration order. */
  public List<ServingEngine> backends() {
    return backends;
  }

  /** Routes {@code request} by §4 alone. */
  public RouteDecision route(ServeRequest request) throws NoAdmissibleBackendException {
    return route(request, AdmissionRule.ALL);
  }

  /**
   * Routes {@code request}, also applying {@code rule} to every backend.
   *
   * @throws NoAdmissibleBackendException with every candidate when none is admissible
   */
  public RouteDecision route(ServeRequest request, AdmissionRule rule)
      throws NoAdmissibleBackendException {
    List<RouteCandidate> candidates = new ArrayList<>(backends.size());
    ServingEngine best = null;
    int bestAt = -1;
    long bestEstimate = Long.MAX_VALUE;
    for (int i = 0; i < backends.size(); i++) {
      ServingEngine b = backends.get(i);
      RouteCandidate c = weigh(b, names.get(i), request, rule);
      candidates.add(c);
      // Strictly lower wins, so the earlier registration keeps a tie.
      if (c.admissible() && (best == null || c.estimateUj() < bestEstimate)) {
        best = b;
        bestAt = candidates.size() - 1;
        bestEstimate = c.estimateUj();
      }
    }
    if (best == null) {
      throw new NoAdmissibleBackendException(
          candidates,
          failure(request, candidates),
          request.fidelityFloor(),
          request.jouleCeilingUj());
    }
    RouteCandidate chosen = candidates.get(bestAt);
    return new RouteDecision(
        best,
        candidates,
        justify(chosen.backend(), chosen.fidelity(), bestEstimate, request, candidates),
        chosen);
  }

  /**
   * Weighs one backend. What is asked of it (its cost profile, rating and limits, and any extra
   * rule, which may read its weights or recipe) is its own code: whatever that throws refuses this
   * one candidate, {@code NOT_PERMITTED}, so one broken backend never fails a request another could
   * serve, and the audit says why it was passed over: that it failed while being judged, for every
   * reader of the route, and what it threw for the operator alone ({@link
   * Inadmissibility#thrown()}). A {@link VirtualMachineError} other than a {@link
   * StackOverflowError} (the heap gone, the JVM broken) is the process failing, not the backend: it
   * passes, never recorded as a refusal. A stack overflow is the backend's own recursion, unwound
   * by now, and refuses it as any other throw does.
   */
  private RouteCandidate weigh(
      ServingEngine b, String name, ServeRequest request, AdmissionRule rule) {
    Fidelity rating = Fidelity.F0;
    long estimate = 0;
    try {
      estimate = b.costProfile().estimate(request);
      // Read once: the candidate must record the rating it was judged on, which the steward seals
      // as the advertised level; nothing obliges an engine to answer the same twice.
      rating = Objects.requireNonNull(b.fidelity(), "fidelity()");
      Optional<Inadmissibility> refusal =
          judge(b, rating, estimate, request, rule, limits(b, name));
      heldFaults.run();
      return new RouteCandidate(name, rating, estimate, refusal);
    } catch (RuntimeException | Error thrown) {
      // A throw ends the judging too: the backend's code may have thrown over the garbage a
      // faulted read gave, the fault still held back; taken here, the throw is suppressed on it.
      Throwable e = MappedReadFault.afterThrow(thrown, heldFaults);
      JvmFailure.passIfFailing(e);
      return failedWhileJudged(name, rating, estimate, e);
    }
  }

  private static RouteCandidate failedWhileJudged(
      String name, Fidelity rating, long estimate, Throwable e) {
    // The throw's words (its Java class, and a message that may name a path or a host the operator
    // runs) go where only the operator reads them: the candidate's detail is in every route a
    // client reads. An exception whose message cannot be built is named by its class.
    String words = ThrowableWords.describe(e);
    return new RouteCandidate(
        name, rating, estimate, Optional.of(Inadmissibility.failedWhileJudged(oneLine(words))));
  }

  private static Optional<Inadmissibility> judge(
      ServingEngine b,
      Fidelity rating,
      long estimate,
      ServeRequest request,
      AdmissionRule rule,
      ServeLimits limits) {
    if (!rating.meets(request.fidelityFloor())) {
      return Optional.of(
          new Inadmissibility(
              Inadmissibility.Kind.BELOW_FLOOR,
              "below floor: " + rating + " < " + request.fidelityFloor()));
    }
    if (estimate > request.jouleCeilingUj()) {
      return Optional.of(
          new Inadmissibility(
              Inadmissibility.Kind.OVER_CEILING,
              "over ceiling: est " + estimate + " uJ > " + request.jouleCeilingUj() + " uJ"));
    }
    Optional<String> over = limits.refusal(request);
    if (over.isPresent()) {
      return Optional.of(
          new Inadmissibility(Inadmissibility.Kind.OVER_LIMIT, "over limit: " + over.get()));
    }
    return rule.refuse(b)
        .map(
            reason ->
                new Inadmissibility(
                    Inadmissibility.Kind.NOT_PERMITTED, "not permitted: " + oneLine(reason)));
  }

  private static String justify(
      String best,
      Fidelity rating,
      long estimate,
      ServeRequest request,
      List<RouteCandidate> candidates) {
    Map<Inadmissibility.Kind, Integer> refused = new EnumMap<>(Inadmissibility.Kind.class);
    int admissible = refusedByKind(candidates, refused);
    StringBuilder s = new StringBuilder();
    s.append("cheapest admissible of ")
        .append(candidates.size())
        .append(": ")
        .append(best)
        .append(' ')
        .append(rating)
        .append(">=")
        .append(request.fidelityFloor())
        .append(", est ")
        .append(estimate)
        .append(" uJ <= ceiling ")
        .append(request.jouleCeilingUj())
        .append(" uJ");
    if (admissible > 1) {
      s.append(", ").append(admissible - 1).append(" other admissible not cheaper");
    }
    appendRefusals(s, refused);
    return s.toString();
  }

  private static String failure(ServeRequest request, List<RouteCandidate> candidates) {
    StringBuilder s =
        new StringBuilder("no admissible backend of ")
            .append(candidates.size())
            .append(" for floor ")
            .append(request.fidelityFloor())
            .append(" and ceiling ")
            .append(request.jouleCeilingUj())
            .append(" uJ");
    Map<Inadmissibility.Kind, Integer> refused = new EnumMap<>(Inadmissibility.Kind.class);
    refusedByKind(candidates, refused);
    appendRefusals(s, refused);
    return s.toString();
  }

  private static Map<Inadmissibility.Kind, String> kindWords() {
    Map<Inadmissibility.Kind, String> words = new EnumMap<>(Inadmissibility.Kind.class);
    for (Inadmissibility.Kind k : Inadmissibility.Kind.values()) {
      words.put(k, k.name().toLowerCase(Locale.ROOT).replace('_', ' '));
    }
    return words;
  }

  /**
   * Counts the candidates refused, by kind, into {@code refused} in one pass, and returns how many
   * were admissible: every served route is justified this way, so no stream per kind.
   */
  private static int refusedByKind(
      List<RouteCandidate> candidates, Map<Inadmissibility.Kind, Integer> refused) {
    int admissible = 0;
    for (RouteCandidate c : candidates) {
      Optional<Inadmissibility> why = c.inadmissibility();
      if (why.isPresent()) {
        refused.merge(why.get().kind(), 1, Integer::sum);
      } else {
        admissible++;
      }
    }
    return admissible;
  }

  /** Each kind refused, in the kinds' order (an {@code EnumMap}'s), with its count. */
  private static void appendRefusals(StringBuilder s, Map<Inadmissibility.Kind, Integer> refused) {
    for (Map.Entry<Inadmissibility.Kind, Integer> e : refused.entrySet()) {
      s.append(", ").append(e.getValue()).append(' ').append(KIND_WORDS.get(e.getKey()));
    }
  }

  /**
   * A rule's words (which may echo a request's {@code model}) or a backend's throw as one safe
   * line: the candidate's detail goes into refusals and JSON replies, its throw into logs.
   */
  private static String oneLine(String s) {
    return OperatorText.oneLine(s);
  }
}
