package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;
import org.meshjava.engine.jlama.JlamaEngine;
import org.meshjava.engine.jlama.testing.TinyLlama;
import org.meshjava.openai.TextDeltas;

/**
 * A stream over a Jlama model sends, token by token, the text of the whole output so far: the
 * engine's tokenizer says it decodes locally, so {@link TextDeltas} decodes windows of it, and this
 * holds that claim to the model's real decoding. Lives here because this module is the one that
 * puts the binding and the engine together.
 */
class JlamaStreamTextTest {
  @TempDir Path tmp;

  @Test
  void streamedText_ofAJlamaModel_isTheWholeDecodingAfterEveryToken() throws Exception {
    // The fixture's vocabulary is the three special tokens and 253 byte-fallback pieces, so random
    // outputs hold split characters, stray bytes, skipped tokens and leading spaces.
    TinyLlama.write(tmp.resolve("tiny"), 7);
    try (JlamaEngine engine = JlamaEngine.builder(tmp.resolve("tiny")).build()) {
      Tokenizer tokenizer = engine.tokenizer();
      assertThat(tokenizer.decodesLocally()).isTrue();
      SplittableRandom random = new SplittableRandom(5);
      for (int trial = 0; trial < 300; trial++) {
        int[] ids = random.ints(1 + random.nextInt(40), 0, TinyLlama.VOCABULARY).toArray();
        TextDeltas deltas = new TextDeltas(tokenizer);
        StringBuilder streamed = new StringBuilder();
        for (int k = 0; k < ids.length; k++) {
          streamed.append(deltas.add(ids[k]));
          String text = tokenizer.decode(TokenSequence.of(Arrays.copyOf(ids, k + 1)));
          assertThat(text).as("after token %d of %s", k, Arrays.toString(ids)).startsWith(streamed);
          assertThat(text.length() - streamed.length()).isLessThanOrEqualTo(1);
        }
        String whole = tokenizer.decode(TokenSequence.of(ids));
        assertThat(streamed + deltas.finish(whole)).isEqualTo(whole);
      }
    }
  }
}
