package org.meshjava.openai;

import java.util.Arrays;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.Tokenizer;

/**
 * Turns output tokens, as an engine produces them, into the text each one adds, with the serving
 * engine's own tokenizer. Each call decodes the whole output so far and hands back what is new, so
 * a tokenizer that needs several tokens for one character (byte-level pieces) is decoded right: a
 * trailing replacement character or lone high surrogate is held back until the next token completes
 * it, or until {@link #finish}. The HTTP binding's streams and the framework adapters decode with
 * it. Not thread-safe: one serve's thread uses it.
 */
public final class TextDeltas {
  private final Tokenizer tokenizer;
  private int[] ids = new int[32];
  private int n;
  private String sent = "";

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
    return sent;
  }

  private String delta(String text, boolean holdIncomplete) {
    int end = text.length();
    if (holdIncomplete
        && end > 0
        && (text.charAt(end - 1) == '\uFFFD' || Character.isHighSurrogate(text.charAt(end - 1)))) {
      end--;
    }
    if (end <= sent.length() || !text.startsWith(sent)) {
      return "";
    }
    String d = text.substring(sent.length(), end);
    sent = text.substring(0, end);
    return d;
  }
}
