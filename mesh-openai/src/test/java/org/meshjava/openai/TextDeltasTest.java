package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;

class TextDeltasTest {

  /**
   * Decodes one code point per token, each on its own, and counts how many ids its whole-sequence
   * decoding was asked to read.
   */
  private static final class CountingCodePoints implements Tokenizer {
    long idsDecoded;

    @Override
    public String name() {
      return "counting-code-points";
    }

    @Override
    public TokenSequence encode(byte[] promptText) {
      return ByteTokenizer.INSTANCE.encode(promptText);
    }

    @Override
    public String decode(TokenSequence output) {
      idsDecoded += output.size();
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < output.size(); i++) {
        sb.append(piece(i, output.get(i)).orElseThrow());
      }
      return sb.toString();
    }

    @Override
    public Optional<String> piece(int index, long token) {
      return Optional.of(new StringBuilder().appendCodePoint((int) token).toString());
    }
  }

  @Test
  void add_whenTheTokenizerDecodesPiecewise_doesNotDecodeTheWholeOutputForEveryToken() {
    // Decoding the whole output again for each token made a stream of n tokens cost n²/2: a
    // 40,000-token stream took 34 s of CPU against 0.2 s for the same reply whole.
    CountingCodePoints tokenizer = new CountingCodePoints();
    TextDeltas deltas = new TextDeltas(tokenizer);
    StringBuilder streamed = new StringBuilder();
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      streamed.append(deltas.add('a' + i % 26));
    }

    assertThat(streamed).hasSize(n);
    assertThat(tokenizer.idsDecoded).isLessThan(4L * n);
  }

  @Test
  void add_whenTheTokenizerDecodesPiecewise_holdsBackAHalfCharacterUntilItsOtherHalf() {
    TextDeltas deltas = new TextDeltas(new CountingCodePoints());

    assertThat(deltas.add('a')).isEqualTo("a");
    assertThat(deltas.add(0xD83D)).isEmpty();
    assertThat(deltas.add(0xDE00)).isEqualTo("\uD83D\uDE00");
    assertThat(deltas.add(0xFFFD)).isEmpty();
    assertThat(deltas.add('b')).isEqualTo("\uFFFDb");
    assertThat(deltas.sent()).isEqualTo("a\uD83D\uDE00\uFFFDb");
    assertThat(deltas.finish(TokenSequence.of('a', 0xD83D, 0xDE00, 0xFFFD, 'b'))).isEmpty();
  }

  @Test
  void add_withTheByteTokenizer_sendsWhatDecodingTheWholeOutputEachTimeSends() {
    int[] ids = {35, 36, 50256, 0, 255, 7};
    TextDeltas deltas = new TextDeltas(ByteTokenizer.INSTANCE);
    List<String> pieces = new ArrayList<>();
    for (int id : ids) {
      pieces.add(deltas.add(id));
    }

    assertThat(pieces).containsExactly("z", " 10", " 12s0", " 0", " 73", " 7");
    assertThat(String.join("", pieces))
        .isEqualTo(ByteTokenizer.INSTANCE.decode(TokenSequence.of(ids)));
    assertThat(deltas.finish(TokenSequence.of(ids))).isEmpty();
  }

  @Test
  void piece_ofThePiecewiseTokenizers_concatenatesToTheirDecoding() {
    // A piece that differed from the whole decoding would stream text the receipt does not commit.
    int[] ids = {'h', 0xE9, 0x1F600, 0xD800, 0x110000, -1, 0, 35, 50256};
    Tokenizer codePoints =
        UpstreamEngine.builder()
            .name("remote")
            .baseUri(java.net.URI.create("http://127.0.0.1:9/v1"))
            .model("m")
            .build()
            .tokenizer();
    for (Tokenizer t : List.of(ByteTokenizer.INSTANCE, codePoints)) {
      TokenSequence output = TokenSequence.of(ids);
      StringBuilder pieces = new StringBuilder();
      for (int i = 0; i < output.size(); i++) {
        pieces.append(t.piece(i, output.get(i)).orElseThrow());
      }
      assertThat(pieces.toString()).as(t.name()).isEqualTo(t.decode(output));
    }
  }

  @Test
  void finish_sendsTheTextStillHeldBack() {
    TextDeltas deltas = new TextDeltas(new CountingCodePoints());
    deltas.add('a');
    deltas.add(0xD83D);

    assertThat(deltas.finish(TokenSequence.of('a', 0xD83D))).isEqualTo("\uD83D");
  }
}
