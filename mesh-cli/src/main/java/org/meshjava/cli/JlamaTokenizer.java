package org.meshjava.cli;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.meshjava.core.TokenSequence;
import org.meshjava.engine.jlama.JlamaEngine;
import org.meshjava.openai.Tokenizer;

/**
 * The HTTP binding's tokenizer for a {@link JlamaEngine} backend: the model's own {@code
 * tokenizer.json}, so a chat request reaches the model as the tokens it was trained on and its
 * output comes back as text. Stateless and thread-safe (the engine's tokenizer is read-only).
 */
final class JlamaTokenizer implements Tokenizer {
  private final JlamaEngine engine;

  JlamaTokenizer(JlamaEngine engine) {
    this.engine = Objects.requireNonNull(engine, "engine");
  }

  @Override
  public String name() {
    return "jlama:" + engine.name();
  }

  @Override
  public TokenSequence encode(byte[] promptText) {
    return engine.encode(new String(promptText, StandardCharsets.UTF_8));
  }

  @Override
  public String decode(TokenSequence output) {
    return engine.decode(output);
  }
}
