package org.meshjava.core;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A backend that serves requests (§5). Implementations advertise a fidelity and a modelled cost, do
 * real work proportional to the tokens they serve, and never report energy: the steward meters
 * around them.
 *
 * <p>Implementations must be safe to call from several threads at once, or say otherwise in their
 * own documentation and be registered with a steward that serialises them.
 */
public interface ServingEngine {

  /** The backend's name, unique within a steward; the receipt's {@code backend}. */
  String name();

  /** The composed model it serves; the receipt's {@code recipe}. */
  Recipe recipe();

  /** The advertised fidelity the router admits on (§3.2.1). */
  Fidelity fidelity();

  /** The modelled cost the router estimates with (§4). */
  CostProfile costProfile();

  /**
   * Whether serving the same request and payload again yields the same tokens (§5). Only a
   * deterministic engine's serves can be replayed (§6.4). An engine that samples must not claim it;
   * the default is {@code false}.
   */
  default boolean deterministic() {
    return false;
  }

  /**
   * Whether {@link #serve} can answer a request on its payload alone: a generation, or a decision
   * sent without its typed questions. An engine that can only answer through {@link
   * DecisionEngine#decide} (it emits no tokens and needs the questions) returns {@code false}, and
   * a steward then routes to it only decisions that carry their questions. The default is {@code
   * true}: an engine that emits tokens can answer any request from its payload.
   */
  default boolean servesPayloadAlone() {
    return true;
  }

  /**
   * The largest request this engine can serve at all: its context window, what its output can hold.
   * A request over them is refused while routing, before any work (§4), so {@link #serve} never
   * sees one. The default is {@link ServeLimits#NONE}; an engine that cannot serve the whole u32
   * range says so here rather than failing on it.
   */
  default ServeLimits limits() {
    return ServeLimits.NONE;
  }

  /**
   * The most tokens one serve can hold in all, its prompt payload and its output together (a
   * model's context window), where the engine has such a bound. The prompt's own count is known
   * only once the routed engine has tokenized it, so the steward checks this after routing and
   * before any grant is decided or any work done, and refuses a request over it with {@code
   * OVER_CONTEXT}. Empty (the default) means no bound beyond {@link #limits()}.
   */
  default OptionalLong contextTokens() {
    return OptionalLong.empty();
  }

  /**
   * The weights the engine runs, bound by content, when it can address them (§3.6). The steward
   * asks before and after each serve and refuses to seal if the answer changed (§2).
   */
  default Optional<WeightsBinding> weights() {
    return Optional.empty();
  }

  /**
   * The energy domains its work draws on (§3.3). A hardware figure needs live counters on all of
   * them, so a backend must declare every one: leaving one out lets a figure claim less than the
   * serve drew. The default, for a backend that runs on the CPU, is every CPU package this process
   * may run on ({@link EnergyDomain#cpuPackagesOfThisProcess()}); the meter adds each package's
   * DRAM where it has a counter for it. A backend that runs on a GPU declares that GPU ({@link
   * EnergyDomain#gpu(int)}, the device as this process sees it) as well as the CPU packages that
   * drive it (the steward adds every package this process may run on to any declaration that names
   * a domain, so neither a GPU alone nor some of the packages is taken for the whole serve); one
   * whose work happens elsewhere (a remote server) declares none.
   */
  default Set<EnergyDomain> domains() {
    return EnergyDomain.cpuPackagesOfThisProcess();
  }

  /**
   * How this engine turns prompt bytes into its token payload and its tokens back into text. The
   * steward asks the engine it routed a prompt-text request to, after routing, so each engine is
   * handed ids of its own vocabulary. The default is {@link ByteTokenizer}: one token per byte.
   */
  default Tokenizer tokenizer() {
    return ByteTokenizer.INSTANCE;
  }

  /**
   * Whose count a serve's {@code tokens_out} is (see {@link TokenAccounting}). The default, {@link
   * TokenAccounting#EMITTED}, holds every result to {@code tokens_out} equal to its number of
   * output ids. An engine whose counts come from a remote server declares {@link
   * TokenAccounting#REMOTE_USAGE}; the steward refuses to seal a result whose accounting the
   * engine's declaration does not admit.
   */
  default TokenAccounting tokenAccounting() {
    return TokenAccounting.EMITTED;
  }

  /**
   * Serves {@code request} on the prompt token payload.
   *
   * @throws EngineException if it cannot serve; nothing is sealed
   */
  EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException;

  /**
   * Serves {@code request}, handing each output token to {@code sink} as it is produced, and stops
   * early when the sink asks (see {@link TokenSink}); the result then holds the tokens produced so
   * far, and its outcome counts exactly those. The tokens handed to the sink are the result's, in
   * order.
   *
   * <p>The default serves whole with {@link #serve(ServeRequest, TokenSequence)} and then hands the
   * tokens over: correct, but nothing arrives before the work is done and cancelling saves no work.
   * An engine that produces tokens one at a time overrides it.
   *
   * @throws EngineException if it cannot serve; nothing is sealed
   */
  default EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink)
      throws EngineException {
    EngineResult result = serve(request, prompt);
    for (int i = 0; i < result.tokens().size(); i++) {
      if (!sink.accept((int) result.tokens().get(i))) {
        break;
      }
    }
    return result;
  }

  /**
   * Serves {@code request} whole, as {@link #serve(ServeRequest, TokenSequence)}, handed with its
   * canonical encoding and id: a steward computes those once per serve and calls this form. The
   * default serves {@link IdentifiedRequest#request()} with {@link #serve(ServeRequest,
   * TokenSequence)}, so an engine written before this method serves exactly as it did, and a {@link
   * ForwardingEngine} decorator's override of that method is still the one called. An engine that
   * reads the request id overrides this to read {@link IdentifiedRequest#id()} rather than encode
   * and hash the request again; it must serve exactly as the other form does.
   *
   * @throws EngineException if it cannot serve; nothing is sealed
   */
  default EngineResult serve(IdentifiedRequest request, TokenSequence prompt)
      throws EngineException {
    return serve(request.request(), prompt);
  }

  /**
   * Serves {@code request} token by token, as {@link #serve(ServeRequest, TokenSequence,
   * TokenSink)}, handed with its canonical encoding and id. The default and the reason to override
   * it are those of {@link #serve(IdentifiedRequest, TokenSequence)}.
   *
   * @throws EngineException if it cannot serve; nothing is sealed
   */
  default EngineResult serve(IdentifiedRequest request, TokenSequence prompt, TokenSink sink)
      throws EngineException {
    return serve(request.request(), prompt, sink);
  }

  /**
   * How many serves may wait for this engine, beyond those it runs at once, before the steward
   * refuses more ({@code BACKEND_BUSY}, before any grant is decided). An engine that serialises its
   * serves declares a small bound, so that requests piling up on it cannot hold every connection of
   * a server that has other backends. The default is unbounded.
   */
  default int maxWaitingServes() {
    return Integer.MAX_VALUE;
  }

  /**
   * How many serves this engine runs at once; more wait (up to {@link #maxWaitingServes()}). The
   * default is unbounded: the engine is safe to call from many threads.
   */
  default int maxConcurrentServes() {
    return Integer.MAX_VALUE;
  }

  /**
   * Whether {@link #serve(ServeRequest, TokenSequence, TokenSink)} hands tokens over as they are
   * produced rather than after the whole serve. The default is {@code false}.
   */
  default boolean streams() {
    return false;
  }
}
