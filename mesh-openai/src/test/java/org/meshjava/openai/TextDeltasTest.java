package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;

class TextDeltasTest {

  /**
   * A tokenizer under test: only its decoding matters here, so it encodes as the byte tokenizer.
   */
  private abstract static class DecodingOnly implements Tokenizer {
    @Override
    public String name() {
      return getClass().getSimpleName();
    }

    @Override
    public TokenSequence encode(byte[] promptText) {
      return ByteTokenizer.INSTANCE.encode(promptText);
    }
  }

  /**
   * Decodes one code point per token, each on its own, and counts how many ids its whole-sequence
   * decoding was asked to read.
   */
  private static final class CountingCodePoints extends DecodingOnly {
    long idsDecoded;

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
    assertThat(deltas.add('b')).isEqualTo("b");
    assertThat(deltas.sent()).isEqualTo("a\uD83D\uDE00b");
    assertThat(
            deltas.finish(
                new CountingCodePoints().decode(TokenSequence.of('a', 0xD83D, 0xDE00, 'b'))))
        .isEmpty();
  }

  @Test
  void add_whenTheTokenizerDecodesPiecewise_sendsAReplacementCharacterAtOnce() {
    // A piece is final text, so its U+FFFD is no half character; holding it back moved it into
    // the next token's piece, splitting an upstream delta that ended in one.
    TextDeltas deltas = new TextDeltas(new CountingCodePoints());

    assertThat(deltas.add('a')).isEqualTo("a");
    assertThat(deltas.add(0xFFFD)).isEqualTo("\uFFFD");
    assertThat(deltas.add('b')).isEqualTo("b");
    assertThat(deltas.finish(new CountingCodePoints().decode(TokenSequence.of('a', 0xFFFD, 'b'))))
        .isEmpty();
  }

  @Test
  void add_ofARun_sendsWhatItsTokensAdd_asOnePiece() {
    TextDeltas deltas = new TextDeltas(new CountingCodePoints());

    assertThat(deltas.add(TokenSequence.of('H', 'i', ' ', 0x1F600))).isEqualTo("Hi \uD83D\uDE00");
    assertThat(deltas.add(TokenSequence.empty())).isEmpty();
    // A run ending in half a character sends the rest; the next token completes it.
    assertThat(deltas.add(TokenSequence.of('!', 0xD83D))).isEqualTo("!");
    assertThat(deltas.add(TokenSequence.of(0xDE00, '.'))).isEqualTo("\uD83D\uDE00.");
    assertThat(deltas.sent()).isEqualTo("Hi \uD83D\uDE00!\uD83D\uDE00.");
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
    assertThat(deltas.finish(ByteTokenizer.INSTANCE.decode(TokenSequence.of(ids)))).isEmpty();
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

    assertThat(deltas.finish(new CountingCodePoints().decode(TokenSequence.of('a', 0xD83D))))
        .isEqualTo("\uD83D");
  }

  /**
   * A SentencePiece-style tokenizer with byte fallback, decoding as such tokenizers do: ids 0 to 2
   * are special and skipped, ids 3 to 258 are the bytes 0x00 to 0xFF, and the rest are words that
   * begin with {@code ▁} (a space) or continue one; the bytes are read as UTF-8 and one leading
   * space is dropped. What a token adds depends on the tokens before it, so it has no pieces; it
   * decodes locally. Counts how many ids it was asked to decode.
   */
  private static final class SentencePieces extends DecodingOnly {
    static final String[] WORDS = {"\u2581the", "\u2581", "ing", "\u2581caf", "é", "\u2581😀", "s"};
    static final int SIZE = 259 + WORDS.length;
    private final boolean local;
    long idsDecoded;

    SentencePieces(boolean local) {
      this.local = local;
    }

    @Override
    public String decode(TokenSequence output) {
      idsDecoded += output.size();
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      for (int i = 0; i < output.size(); i++) {
        int id = (int) output.get(i);
        if (id >= 3 && id < 259) {
          bytes.write(id - 3);
        } else if (id >= 259) {
          bytes.writeBytes(WORDS[id - 259].replace('\u2581', ' ').getBytes(StandardCharsets.UTF_8));
        }
      }
      String text = bytes.toString(StandardCharsets.UTF_8);
      return text.startsWith(" ") ? text.substring(1) : text;
    }

    @Override
    public boolean decodesLocally() {
      return local;
    }
  }

  /**
   * What decoding the whole output again for every token sends: the new end of each decoding, less
   * a last character that may be half of one, as long as the decoding begins with what was sent.
   * The reference the cheaper ways of following the text must agree with.
   */
  private static String sentByWholeDecodings(Tokenizer tokenizer, int[] ids, int count) {
    String sent = "";
    for (int k = 1; k <= count; k++) {
      String text = tokenizer.decode(TokenSequence.of(Arrays.copyOf(ids, k)));
      int end = text.length();
      char last = end == 0 ? 'x' : text.charAt(end - 1);
      if (last == '\uFFFD' || Character.isHighSurrogate(last)) {
        end--;
      }
      if (end > sent.length() && text.startsWith(sent)) {
        sent = text.substring(0, end);
      }
    }
    return sent;
  }

  /**
   * Streams {@code ids}, checking after each token that what was sent is what whole decodings send.
   */
  private static void assertSendsWhatWholeDecodingsSend(Tokenizer tokenizer, int[] ids) {
    TextDeltas deltas = new TextDeltas(tokenizer);
    StringBuilder streamed = new StringBuilder();
    for (int k = 0; k < ids.length; k++) {
      streamed.append(deltas.add(ids[k]));
      assertThat(deltas.sent())
          .as("after token %d of %s", k, Arrays.toString(ids))
          .isEqualTo(streamed.toString())
          .isEqualTo(sentByWholeDecodings(tokenizer, ids, k + 1));
    }
    String whole = tokenizer.decode(TokenSequence.of(ids));
    String rest = deltas.finish(whole);
    if (whole.startsWith(streamed.toString())) {
      assertThat(streamed + rest).isEqualTo(whole);
    } else {
      assertThat(rest).isEmpty();
    }
  }

  @Test
  void add_whenTheTokenizerDecodesLocally_sendsWhatDecodingTheWholeOutputEachTimeSends() {
    // Random outputs of words, stray bytes, split multi-byte characters and skipped tokens: the
    // windows must send, token for token, what decoding the whole output each time sends.
    SplittableRandom random = new SplittableRandom(17);
    for (int trial = 0; trial < 400; trial++) {
      int[] ids = new int[1 + random.nextInt(60)];
      for (int i = 0; i < ids.length; i++) {
        int kind = random.nextInt(10);
        ids[i] =
            kind < 4
                ? 259 + random.nextInt(SentencePieces.WORDS.length)
                : kind < 5
                    ? random.nextInt(3)
                    : kind < 7 ? 3 + 0x20 + random.nextInt(0x5f) : 3 + 0x80 + random.nextInt(0x80);
      }
      assertSendsWhatWholeDecodingsSend(new SentencePieces(true), ids);
    }
    // The cases that need a window's context: a lone leading space, a character split over three
    // byte tokens, skipped tokens between them, a space after skipped tokens at the start or after
    // a run of them.
    int space = 3 + ' ';
    int[][] cases = {
      {space, 3 + 'a', space, space, 3 + 'b'},
      {0, 1, space, 3 + 'x', 2, space},
      {3 + 0xE2, 3 + 0x82, 2, 3 + 0xAC, 259, 260, 261},
      {260, 260, 260, 3 + 'q'},
      {3 + 'a', 0, 1, 2, 0, 1, 2, space, 3 + 'b'},
      {3 + 0xF0, 3 + 0x9F, 3 + 0x98, 3 + 0x80, 3 + 0x80, 3 + 'z'},
    };
    for (int[] ids : cases) {
      assertSendsWhatWholeDecodingsSend(new SentencePieces(true), ids);
    }
  }

  @Test
  void add_whenTheTokenizerDecodesLocally_decodesAWindowNotTheWholeOutput() {
    SentencePieces tokenizer = new SentencePieces(true);
    TextDeltas deltas = new TextDeltas(tokenizer);
    SplittableRandom random = new SplittableRandom(3);
    int n = 10_000;
    StringBuilder streamed = new StringBuilder();
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) {
      ids[i] = 259 + random.nextInt(SentencePieces.WORDS.length);
      streamed.append(deltas.add(ids[i]));
    }
    long decodedWhileStreaming = tokenizer.idsDecoded;

    assertThat(streamed.toString()).isEqualTo(tokenizer.decode(TokenSequence.of(ids)));
    assertThat(decodedWhileStreaming).isLessThan(16L * n);
  }

  @Test
  void add_overARunOfStrayBytes_keepsItsWindowBounded() {
    // Bytes that never make a character leave every decoding ending in U+FFFD; without a bound the
    // window, and each token's cost, would grow with the run.
    assertRunDecodesInBoundedWindows(3 + 0x80);
  }

  @Test
  void add_overARunOfLoneSpaces_keepsItsWindowBounded() {
    // A lone space decodes to nothing on its own (the leading space is dropped), so a window cannot
    // start at it; its first half takes a token before it instead of growing with the run.
    assertRunDecodesInBoundedWindows(260);
  }

  private static void assertRunDecodesInBoundedWindows(int id) {
    SentencePieces tokenizer = new SentencePieces(true);
    int n = 5_000;
    int[] ids = new int[n + 1];
    Arrays.fill(ids, id);
    ids[n] = 3 + 'k';
    TextDeltas deltas = new TextDeltas(tokenizer);
    StringBuilder streamed = new StringBuilder();
    for (int token : ids) {
      streamed.append(deltas.add(token));
    }

    assertThat(streamed.toString()).isEqualTo(tokenizer.decode(TokenSequence.of(ids)));
    assertThat(tokenizer.idsDecoded).isLessThan(4L * TextDeltas.MAX_WINDOW * ids.length);
  }

  @Test
  void add_whenTheTokenizerDoesNotSayItDecodesLocally_decodesTheWholeOutput() {
    // Without the tokenizer's word that its text is local, only the whole output says what a token
    // added; this one's decoding is local, but it does not say so.
    SentencePieces tokenizer = new SentencePieces(false);
    TextDeltas deltas = new TextDeltas(tokenizer);
    int n = 200;
    for (int i = 0; i < n; i++) {
      deltas.add(259);
    }

    assertThat(tokenizer.idsDecoded).isEqualTo((long) n * (n + 1) / 2);
  }

  @Test
  void add_whenAWindowDisagreesWithItsFirstHalf_fallsBackToWholeDecodings() {
    // A window that begins after an erased character cannot see it, so the stream must not trust
    // a window whose text does not begin with its first half's.
    Tokenizer erasing = new Erasing();

    assertSendsWhatWholeDecodingsSend(erasing, new int[] {'a', 'b', 1, 'c', 'd'});
    assertSendsWhatWholeDecodingsSend(erasing, new int[] {'a', 'b', 'c', 1, 1, 'd'});
  }

  /** Says it decodes locally but does not: id 1 erases the character before it. */
  private static final class Erasing extends DecodingOnly {
    @Override
    public String decode(TokenSequence output) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < output.size(); i++) {
        long id = output.get(i);
        if (id == 1) {
          sb.setLength(Math.max(0, sb.length() - 1));
        } else {
          sb.append((char) id);
        }
      }
      return sb.toString();
    }

    @Override
    public boolean decodesLocally() {
      return true;
    }
  }
}
