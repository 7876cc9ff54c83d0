package org.meshjava.openai;

import java.util.Arrays;
import java.util.Optional;
import java.util.function.Predicate;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.Tokenizer;

/**
 * Turns output tokens, as an engine produces them, into the text each one adds, with the serving
 * engine's own tokenizer. The text sent is what the tokenizer's decoding of the whole output so far
 * adds, so a tokenizer that needs several tokens for one character (byte-level pieces) is decoded
 * right: a trailing replacement character or lone high surrogate is held back until the next token
 * completes it, or until {@link #finish}. A piecewise tokenizer's pieces are final text, so for one
 * only a lone high surrogate, which cannot be sent on its own, waits. A run of tokens that the
 * engine hands over together ({@link #add(TokenSequence)}) is sent as one piece. The HTTP binding's
 * streams and the framework adapters decode with it. Not thread-safe: one serve's thread uses it.
 *
 * <p>What a token costs, by tokenizer:
 *
 * <ul>
 *   <li>one that decodes each token on its own ({@link Tokenizer#piece}) has the text built up
 *       piece by piece;
 *   <li>one whose text depends only on the tokens just before ({@link Tokenizer#decodesLocally})
 *       has a short window of the output decoded per token: the tokens since the text last ended on
 *       a whole character, after the tokens that produced the text before that. The earlier tokens
 *       are the context the window needs (a leading space that a tokenizer drops only at the start
 *       of its text is dropped from both halves alike), and what the window's decoding adds to its
 *       first half's is the new text. This is how streaming servers detokenize SentencePiece and
 *       byte-level BPE output. Should a window's decoding ever not begin with the text its first
 *       half decoded to, the rest of the output is decoded as for any other tokenizer;
 *   <li>any other has its whole output decoded again for every token, since only the whole says
 *       what a token added: a stream of n tokens costs n²/2.
 * </ul>
 */
public final class TextDeltas {
  /**
   * How many tokens a window may hold before its text is sent even though it ends on half a
   * character. A character is at most four bytes, so only output that is not text (runs of stray
   * bytes) gets this far; without a bound such output would make the window, and each token's cost,
   * grow with the output.
   */
  static final int MAX_WINDOW = 64;

  private final Tokenizer tokenizer;
  private int[] ids = new int[32];
  private int n;

  /** How the text is being followed: piece by piece, by windows, or by whole decodings. */
  private enum Mode {
    PIECES,
    WINDOWS,
    WHOLE
  }

  private Mode mode = Mode.PIECES;

  /**
   * The decoding of the output so far; for a piecewise tokenizer only, built up as tokens arrive.
   */
  private final StringBuilder text = new StringBuilder();

  /** The window's first token, and the first token after its first half. */
  private int windowStart;

  private int windowSplit;

  /** The decoding of the window's first half, {@code ids[windowStart, windowSplit)}. */
  private String windowHead = "";

  /** Text sent since the window's first half: what it decoded to after the head, so far. */
  private String windowSent = "";

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
    if (mode == Mode.PIECES) {
      Optional<String> piece = tokenizer.piece(n - 1, Integer.toUnsignedLong(token));
      if (piece.isPresent()) {
        text.append(piece.get());
        return appended();
      }
      // A window starts at the output's start, with everything sent so far already sent from it.
      mode = tokenizer.decodesLocally() ? Mode.WINDOWS : Mode.WHOLE;
      windowSent = sent.toString();
    }
    if (mode == Mode.WINDOWS) {
      Optional<String> d = windowed();
      if (d.isPresent()) {
        return d.get();
      }
      mode = Mode.WHOLE;
    }
    return delta(decode(0, n), true);
  }

  /**
   * The text a run of tokens adds, as one piece: what {@link #add(int)} adds for each of them,
   * joined. A run is a unit its engine chose (an upstream's delta), so its text is sent as one.
   */
  public String add(TokenSequence run) {
    int before = sent.length();
    for (int i = 0; i < run.size(); i++) {
      add((int) run.get(i));
    }
    return sent.substring(before);
  }

  /**
   * A sink that decodes what the engine hands it: {@code text} is given what each token adds, and
   * what each run of tokens adds as one piece (either possibly empty), and answers whether to go
   * on.
   */
  public TokenSink sink(Predicate<String> text) {
    return new TokenSink() {
      @Override
      public boolean accept(int token) {
        return text.test(add(token));
      }

      @Override
      public boolean acceptRun(TokenSequence run) {
        return text.test(add(run));
      }
    };
  }

  /**
   * The text still unsent once the whole output is known, given as the whole output's decoding the
   * steward made before the serve was sealed ({@code ServeResult.text()}). Empty if the tokenizer
   * decoded a prefix of the output to text the whole output's text does not begin with; the final
   * event's full text is then the authority.
   *
   * <p>There is no form taking the output tokens: decoding them here would run the tokenizer after
   * the serve was sealed and paid for, where a tokenizer that fails or answers otherwise the second
   * time leaves a reply that disagrees with what was sealed, or none (SPEC.md §60.1, step 3).
   */
  public String finish(String whole) {
    return delta(whole, false);
  }

  /** All of the text sent so far. */
  public String sent() {
    return sent.toString();
  }

  /**
   * The text the newest token adds, decoding only the window; empty when the window's decoding does
   * not extend what it sent, so that only a decoding of the whole can say what is new.
   */
  private Optional<String> windowed() {
    String window = decode(windowStart, n);
    int head = windowHead.length();
    if (!window.startsWith(windowHead) || !window.startsWith(windowSent, head)) {
      return Optional.empty();
    }
    int end = window.length();
    boolean whole = !heldBack(window, end) || n - windowStart >= MAX_WINDOW;
    if (!whole) {
      end--;
    }
    String d = window.substring(Math.min(end, head + windowSent.length()), end);
    sent.append(d);
    if (!whole) {
      windowSent += d;
      return Optional.of(d);
    }
    // The text ends on a whole character: the tokens since the split become the next window's
    // first half. A first half must decode to some text, or a leading space dropped from the
    // window's text would have nothing to be dropped from alike; so where those tokens decode to
    // nothing on their own (a lone space dropped, a token a decoding skips), a few tokens before
    // them join it.
    int start = windowSplit;
    String rest = decode(start, n);
    for (int back = 0; rest.isEmpty() && start > windowStart && back < 4; back++) {
      rest = decode(--start, n);
    }
    if (rest.isEmpty()) {
      windowHead = window;
    } else {
      windowStart = start;
      windowHead = rest;
    }
    windowSplit = n;
    windowSent = "";
    return Optional.of(d);
  }

  private String decode(int from, int to) {
    return tokenizer.decode(TokenSequence.of(Arrays.copyOfRange(ids, from, to)));
  }

  /**
   * What {@link #delta} answers for {@link #text}, without copying the text so far: it only grows,
   * so it always begins with what was sent. Only a lone high surrogate is held back: pieces
   * concatenate to the decoding ({@link Tokenizer#piece}), so a replacement character among them
   * stays one, and holding it would move it into the next token's piece (an upstream delta ending
   * in one would reach the client split in two).
   */
  private String appended() {
    int end = text.length();
    if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) {
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
    if (holdIncomplete && heldBack(text, end)) {
      end--;
    }
    if (end <= sent.length() || !text.startsWith(sent.toString())) {
      return "";
    }
    String d = text.substring(sent.length(), end);
    sent.append(d);
    return d;
  }

  /** Whether the last of {@code text}'s first {@code end} characters may be half of one. */
  private static boolean heldBack(CharSequence text, int end) {
    if (end == 0) {
      return false;
    }
    char last = text.charAt(end - 1);
    return last == '\uFFFD' || Character.isHighSurrogate(last);
  }
}
