package org.meshjava.steward;

import org.meshjava.core.TokenSink;
import org.meshjava.router.RouteDecision;

/**
 * Opens where a streamed generation's tokens go, once the steward has routed and authorised the
 * serve and just before the engine runs: the caller learns which backend serves (to decode its
 * tokens with {@code route.chosen().tokenizer()}) before the first token arrives. A serve refused
 * before then never opens a sink.
 *
 * <p>The sink's {@code false} cancels the engine cooperatively; whatever it produced until then is
 * metered, debited, sealed and journalled as usual, and the {@link ServeResult} holds exactly those
 * tokens. A sink (or this method) that throws is treated as cancelling.
 *
 * <p>Called once per serve, on the serving thread (on the engine's own thread instead when the
 * steward has an engine deadline, {@code Steward.Builder.engineDeadline}), and the sink it opens is
 * used by that one thread alone; once a serve has given up on its engine, neither is called again.
 * A streamer shared by several serves is opened from their threads at once, so it must then be
 * thread-safe.
 */
@FunctionalInterface
public interface Streamer {

  /** A streamer whose sink takes every token: a serve nobody streams. */
  Streamer NONE = route -> TokenSink.DISCARD;

  /** The sink for the serve {@code route} chose a backend for. */
  TokenSink open(RouteDecision route);
}
