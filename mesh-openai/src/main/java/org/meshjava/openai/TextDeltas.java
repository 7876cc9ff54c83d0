package org.meshjava.openai;

import java.util.Arrays;
import java.util.Optional;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;

/**
 * Turns output tokens, as an engine produces them, into the text each one adds, with the serving
 * engine's own tokenizer. The text of the output so far is the tokenizer's decoding of the whole
 * output so far, and what is new in it is handed back, so a tokenizer that needs several tokens for
 * one character (byte-level pieces) is decoded right: a trailing replacement character or lone high
 * surrogate is held back until the next token completes it, or until {@link #finish}. The HTTP
 * binding's streams and the framework adapters decode with it. Not thread-safe: one serve's thread
 * uses it.
 *
 * <p>A tokenizer that decodes each token on its own ({@link Tokenizer#piece}) has that text built
 * up piece by piece, each token costing its own piece; any other has its whole output decoded again
 * for every token, since only the whole says what a token added.
 */
public final class TextDeltas {
  private final Tokenizer tokenizer;
  private int[] ids = new int[32];
  private int n;

  /**
   * The decoding of the output so far; for a piecewise tokenizer only, built up as tokens arrive.
   */
  private final StringBuilder text = new StringBuilder();

  /** Whether {@link #text} is being built piece by piece; false once a piece was refused. */
  private boolean piecewise = true;

  /**
   * All of the text sent so far; appended to, never copied whole, so each token costs its piece.
   */
  private final StringBuilder sent = new StringBuilder();

  /** Decodes with {@code tokenizer}, the serving engine's own. */
  public TextDeltas(Tokenizer tokenizer) {
    this.tokenizer = tokenizer;
  }

  /** The text {@code token} adds, possibly empty. */
  public String add(int token) {
    if (n == ids.length) {
      ids = Arrays.copyOf(ids, n * 2);
    }
    ids[n++] = token;
    if (piecewise) {
      Optional<String> piece = tokenizer.piece(n - 1, Integer.toUnsignedLong(token));
      if (piece.isPresent()) {
        text.append(piece.get());
        return appended();
      }
      piecewise = false;
    }
    return delta(tokenizer.decode(TokenSequence.of(Arrays.copyOf(ids, n))), true);
  }

  /**
   * The text still unsent once the whole output is known. Empty if the tokenizer decoded a prefix
   * of the output to text the whole output's text does not begin with; the final event's full text
   * is then the authority.
   */
  public String finish(TokenSequence all) {
    return delta(tokenizer.decode(all), false);
  }

  /** All of the text sent so far. */
  public String sent() {
    return sent.toString();
  }

  /**
   * What {@link #delta} answers for {@link #text}, without copying the text so far: it only grows,
   * so it always begins with what was sent.
   */
  private String appended() {
    int end = text.length();
    if (end > 0 && heldBack(text.charAt(end - 1))) {
      end--;
    }
    if (end <= sent.length()) {
      return "";
    }
    String d = text.substring(sent.length(), end);
    sent.append(d);
    return d;
  }

  private String delta(String text, boolean holdIncomplete) {
    int end = text.length();
    if (holdIncomplete && end > 0 && heldBack(text.charAt(end - 1))) {
      end--;
    }
    if (end <= sent.length() || !text.startsWith(sent.toString())) {
      return "";
    }
    String d = text.substring(sent.length(), end);
    sent.append(d);
    return d;
  }

  /** Whether a last character may be half of one that a later token completes. */
  private static boolean heldBack(char last) {
    return last == '\uFFFD' || Character.isHighSurrogate(last);
  }
}
