package org.meshjava.core;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link ServingEngine} that could not serve a request. Nothing is sealed for it.
 *
 * <p>Its message is for the engine's operator and the Java caller that embeds the steward: it may
 * name a file, a host, a model or a key. The client who asked the serve (over a network binding,
 * perhaps unauthenticated) reads only {@link #clientWords()}: words the engine declares written for
 * that client, such as a prompt over its context or an upstream's refusal told by its status. An
 * engine's failure that declares none, and whatever else an engine throws, reaches its client as a
 * fixed description and a reference under which the steward logs the whole throw for its operator
 * (SPEC.md 60.10).
 */
public class EngineException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Words the client may read, or null where the engine declared none. */
  private final @Nullable String clientWords;

  /** Creates the exception with a reason, for the operator only. */
  public EngineException(String message) {
    super(message);
    this.clientWords = null;
  }

  /** Creates the exception with a reason and a cause, for the operator only. */
  public EngineException(String message, @Nullable Throwable cause) {
    super(message, cause);
    this.clientWords = null;
  }

  /**
   * Creates the exception with a reason for the operator, words the serve's client may read, and a
   * cause. Say in {@code clientWords} only what any client may be told: never a path, host, model
   * file, key or internal state.
   *
   * @param message the operator's and embedder's words
   * @param clientWords the client's words, on one line
   * @param cause the cause, or null
   */
  public EngineException(String message, String clientWords, @Nullable Throwable cause) {
    super(message, cause);
    this.clientWords = requireWords(clientWords);
  }

  /**
   * Words for a failure whose reason is the client's own to read, the same for the operator: a
   * shorthand for {@code new EngineException(words, words, null)}.
   */
  public static EngineException toClient(String words) {
    return new EngineException(words, words, null);
  }

  /**
   * The words the serve's client may read, where the engine declared them; empty where only its
   * operator may read why it failed. A subclass may compute them (the HTTP binding's upstream
   * refusal says the upstream's status only).
   */
  public Optional<String> clientWords() {
    return Optional.ofNullable(clientWords);
  }

  private static String requireWords(String words) {
    if (words == null || words.isBlank()) {
      throw new IllegalArgumentException("an engine's words for its client must not be blank");
    }
    return words;
  }
}
