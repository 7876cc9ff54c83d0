package org.meshjava.steward;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.DecisionEngine;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.DecisionResult;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.router.AdmissionRule;
import org.meshjava.router.RouteDecision;

/**
 * One serve's unit of work: a generation or a typed decision, each a type, with the prompt as the
 * caller gave it. Each mode owns its admission ({@link #fit}, {@link #admits}), its engine call
 * ({@link #run}) and its post-check ({@link #check}); the steward's pipeline never asks which mode
 * it holds. The steward routes first and only then turns the prompt into the routed engine's
 * payload ({@link Prompt#payloadFor}), so no request is tokenized for an engine that does not serve
 * it.
 */
sealed interface Ask permits Ask.Generation, Ask.Decision {

  /** Refuses, before routing, a prompt or questions that do not fit the request. */
  void fit(ServeRequest request) throws ServeException;

  /** Admits the engines that can do this kind of work. */
  AdmissionRule admits();

  /** The routed engine's payload. */
  TokenSequence payloadFor(ServingEngine engine);

  /** Runs the routed engine on the payload. */
  Worked run(RouteDecision route, IdentifiedRequest request, TokenSequence payload)
      throws EngineException;

  /**
   * This ask with the caller's streamer reached only through {@code gate}, for an engine run on a
   * thread of its own under a deadline ({@link EngineDeadline}): once the serve has stopped
   * waiting, nothing opens the caller's sink or reaches it.
   */
  Ask gated(EngineDeadline.Gate gate);

  /**
   * The post-check, after the engine ran: its report fits the request and the rating the router
   * admitted it on ({@link OutcomeCheck}), and it answered what this ask asked ({@link #answered}).
   * Nothing is sealed unless it passes.
   */
  default void check(RoutedBackend backend, Fidelity admitted, ServeRequest request, Worked worked)
      throws ServeException {
    OutcomeCheck.check(backend, admitted, request, worked.result());
    answered(backend, request, worked.result().outcome(), worked);
  }

  /**
   * The output as text, for a caller who handed the prompt over as text: decoded by the routed
   * engine's own tokenizer once the work passed its checks, before anything is debited or sealed,
   * so that a tokenizer that cannot decode it refuses the serve {@code ENGINE_FAILED} (its work
   * debited, §2 phase 3, and nothing sealed) instead of failing the caller after its receipt was
   * sealed. Empty for a payload the caller tokenized, and for a decision.
   */
  default Optional<String> text(RoutedBackend backend, Worked worked) throws ServeException {
    return Optional.empty();
  }

  /** Checks, after the engine ran, that it answered what was asked. */
  void answered(RoutedBackend backend, ServeRequest request, ServeOutcome outcome, Worked worked)
      throws ServeException;

  /**
   * What the engine returned: its token-level result, answers when it decided questions, and the
   * tokens it handed a streaming caller.
   */
  record Worked(EngineResult result, List<DecisionAnswer> answers, TokenSequence handed) {}

  /** How the caller handed the prompt over: as a payload it tokenized, or as text. */
  sealed interface Prompt permits Tokens, Text {
    /** The prompt hash the request must carry, when the steward can see the prompt's bytes. */
    Optional<ContentId> hash();

    /** The payload the routed engine is handed. */
    TokenSequence payloadFor(ServingEngine engine);
  }

  /** A payload the caller tokenized itself; handed over unchanged to whichever engine serves. */
  record Tokens(TokenSequence payload) implements Prompt, DecisionInput {
    public Tokens {
      Objects.requireNonNull(payload, "prompt");
    }

    @Override
    public Optional<ContentId> hash() {
      return Optional.empty();
    }

    @Override
    public TokenSequence payloadFor(ServingEngine engine) {
      return payload;
    }

    @Override
    public TokenSequence layOut(DecisionEngine engine) {
      return payload;
    }
  }

  /** Prompt text, tokenized by the routed engine's own tokenizer. */
  record Text(PromptText text) implements Prompt {
    public Text {
      Objects.requireNonNull(text, "prompt");
    }

    @Override
    public Optional<ContentId> hash() {
      return Optional.of(text.hash());
    }

    @Override
    public TokenSequence payloadFor(ServingEngine engine) {
      return engine.tokenizer().encode(text.bytes());
    }
  }

  /**
   * A generation: the engine serves the payload alone, handing its tokens to the streamer's sink as
   * it produces them.
   */
  record Generation(Prompt prompt, Streamer streamer) implements Ask {
    public Generation {
      Objects.requireNonNull(prompt, "prompt");
      Objects.requireNonNull(streamer, "streamer");
    }

    Generation(Prompt prompt) {
      this(prompt, Streamer.NONE);
    }

    @Override
    public void fit(ServeRequest request) throws ServeException {
      if (request.isDecision() && prompt instanceof Text) {
        throw new ServeException(
            ServeException.Reason.QUESTIONS_MISMATCH,
            "a decision asked as prompt text needs its typed questions (DecisionPrompt)");
      }
      promptFits(request, prompt.hash());
    }

    @Override
    public AdmissionRule admits() {
      return DecisionCheck.SERVES_PAYLOAD_ALONE;
    }

    @Override
    public TokenSequence payloadFor(ServingEngine engine) {
      return prompt.payloadFor(engine);
    }

    @Override
    public Worked run(RouteDecision route, IdentifiedRequest request, TokenSequence payload)
        throws EngineException {
      if (streamer == Streamer.NONE) {
        return new Worked(route.chosen().serve(request, payload), List.of(), TokenSequence.empty());
      }
      Handed handed = new Handed(open(route));
      EngineResult result = route.chosen().serve(request, payload, handed);
      return new Worked(result, List.of(), handed.tokens());
    }

    @Override
    public Ask gated(EngineDeadline.Gate gate) {
      if (streamer == Streamer.NONE) {
        return this;
      }
      Streamer inner = streamer;
      return new Generation(
          prompt,
          route -> {
            TokenSink[] opened = new TokenSink[1];
            boolean open =
                gate.guard(
                    () -> {
                      opened[0] = inner.open(route);
                      return true;
                    });
            return open
                ? EngineDeadline.guarded(Objects.requireNonNull(opened[0], "sink"), gate)
                : token -> false;
          });
    }

    private TokenSink open(RouteDecision route) {
      try {
        return Objects.requireNonNull(streamer.open(route), "sink");
      } catch (RuntimeException e) {
        return token -> false;
      }
    }

    @Override
    public Optional<String> text(RoutedBackend backend, Worked worked) throws ServeException {
      if (!(prompt instanceof Text)) {
        return Optional.empty();
      }
      ServingEngine engine = backend.engine();
      TokenSequence tokens = worked.result().tokens();
      return Optional.of(
          EngineAnswer.of(backend, "decode its output", () -> engine.tokenizer().decode(tokens)));
    }

    @Override
    public void answered(
        RoutedBackend backend, ServeRequest request, ServeOutcome outcome, Worked worked)
        throws ServeException {
      if (streamer == Streamer.NONE) {
        return;
      }
      // What a client was handed must be what is sealed: the handed tokens are a prefix of the
      // result (all of it, for an engine that stops when asked).
      TokenSequence all = worked.result().tokens();
      TokenSequence handed = worked.handed();
      boolean prefix = handed.size() <= all.size();
      for (int i = 0; prefix && i < handed.size(); i++) {
        prefix = handed.get(i) == all.get(i);
      }
      if (!prefix) {
        throw new ServeException(
            ServeException.Reason.INCONSISTENT_OUTCOME,
            backend + " streamed tokens that are not its result's");
      }
    }
  }

  /** Records what the engine handed the caller's sink; a sink that throws cancels. */
  final class Handed implements TokenSink {
    private final TokenSink sink;
    private int[] ids = new int[16];
    private int n;

    Handed(TokenSink sink) {
      this.sink = sink;
    }

    @Override
    public boolean accept(int token) {
      record(token);
      try {
        return sink.accept(token);
      } catch (RuntimeException e) {
        return false;
      }
    }

    /** Passes the run on whole, so that the caller's sink sees the engine's own pieces. */
    @Override
    public boolean acceptRun(TokenSequence run) {
      for (int i = 0; i < run.size(); i++) {
        record((int) run.get(i));
      }
      try {
        return sink.acceptRun(run);
      } catch (RuntimeException e) {
        return false;
      }
    }

    private void record(int token) {
      if (n == ids.length) {
        ids = java.util.Arrays.copyOf(ids, n * 2);
      }
      ids[n++] = token;
    }

    TokenSequence tokens() {
      return TokenSequence.of(java.util.Arrays.copyOf(ids, n));
    }
  }

  /** How a decision's prompt was handed over: a payload the caller laid out, or as text. */
  sealed interface DecisionInput permits Tokens, Laid {
    /** The payload the routed decision engine is handed. */
    TokenSequence layOut(DecisionEngine engine);
  }

  /**
   * A decision asked as prompt text, laid out by the routed engine ({@link
   * DecisionEngine#payload}).
   */
  record Laid(DecisionPrompt prompt) implements DecisionInput {
    public Laid {
      Objects.requireNonNull(prompt, "prompt");
    }

    @Override
    public TokenSequence layOut(DecisionEngine engine) {
      return engine.payload(prompt);
    }
  }

  /** A typed decision with its questions. */
  record Decision(DecisionInput input, List<DecisionQuestion> questions) implements Ask {
    public Decision {
      Objects.requireNonNull(input, "prompt");
      questions = List.copyOf(questions);
    }

    @Override
    public void fit(ServeRequest request) throws ServeException {
      DecisionCheck.questionsFit(request, questions);
      if (input instanceof Laid(DecisionPrompt p)) {
        promptFits(request, Optional.of(p.text().hash()));
        if (!request.decision().get().equals(p.shape())) {
          throw new ServeException(
              ServeException.Reason.QUESTIONS_MISMATCH,
              "the request's decision shape "
                  + request.decision().get()
                  + " is not the prompt's "
                  + p.shape());
        }
      }
    }

    @Override
    public AdmissionRule admits() {
      return DecisionCheck.ANSWERS_QUESTIONS;
    }

    @Override
    public TokenSequence payloadFor(ServingEngine engine) {
      // Admission lets only decision engines through.
      return input.layOut((DecisionEngine) engine);
    }

    @Override
    public Worked run(RouteDecision route, IdentifiedRequest request, TokenSequence payload)
        throws EngineException {
      DecisionResult r = ((DecisionEngine) route.chosen()).decide(request, payload, questions);
      if (r == null) {
        // As a generation that hands back no result (Metering): the engine failing, in words of
        // its own, not a NullPointerException's about our code.
        throw EngineException.toClient("it returned no decision");
      }
      return new Worked(r.toEngineResult(), r.answers(), TokenSequence.empty());
    }

    @Override
    public Ask gated(EngineDeadline.Gate gate) {
      return this; // no sink
    }

    @Override
    public void answered(
        RoutedBackend backend, ServeRequest request, ServeOutcome outcome, Worked worked)
        throws ServeException {
      DecisionCheck.answersFit(backend, request, questions, outcome, worked.answers());
    }
  }

  private static void promptFits(ServeRequest request, Optional<ContentId> hash)
      throws ServeException {
    if (hash.isPresent() && !hash.get().equals(request.promptHash())) {
      throw new ServeException(
          ServeException.Reason.PROMPT_MISMATCH,
          "the request's prompt_hash "
              + request.promptHash()
              + " does not address the prompt served with it ("
              + hash.get()
              + "): make the request from that same prompt (ServeRequest.generation and"
              + " ServeRequest.decision take the prompt and hash it)");
    }
  }
}
