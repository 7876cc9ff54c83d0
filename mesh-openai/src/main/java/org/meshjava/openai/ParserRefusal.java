package org.meshjava.openai;

import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.http.HttpCompliance;
import org.eclipse.jetty.http.UriCompliance;
import org.jspecify.annotations.Nullable;

/**
 * Jetty's refusals of a request head, reworded to say what is wrong and what to send instead. Jetty
 * words them for its own log ("Line Folding not supported", "Authority!=Host"), and the words reach
 * the client as the {@code http_<status>} error's message: "Line Folding not supported" is all
 * Jetty tells a client sending a header line with an empty field name ({@code : value}), which
 * names another fault. Matched on Jetty's exact text (for an illegal character, its opening words),
 * which only its parser and request checks produce; a refusal not listed keeps Jetty's words.
 * Stateless.
 */
enum ParserRefusal {
  /**
   * Jetty's parser takes a header line that begins with a colon, a space or a tab for the
   * continuation of the line before it (obs-fold), which the listener does not take; so the two
   * faults share its words and both are named here.
   */
  EMPTY_NAME_OR_FOLDED_LINE(
      400,
      "Line Folding not supported",
      "a header line begins with ':' or with whitespace: a field needs a name before its colon"
          + " (RFC 9110 §5.1), and a value folded onto the next line (obs-fold, RFC 9112 §5.2) is"
          + " not taken; send each field as Name: value on one line"),
  /** RFC 9112 §3.2.2: an absolute-form target and {@code Host} must name the same authority. */
  AUTHORITY_NOT_HOST(
      400,
      "Authority!=Host",
      "the request target's authority is not the Host field's (RFC 9112 §3.2.2): send the path"
          + " alone with Host naming this server, or the same host and port in both"),
  /** Every way a Transfer-Encoding fails to end in exactly one {@code chunked} (RFC 9112 §6.1). */
  CHUNKED_NOT_LAST(400, "Bad Transfer-Encoding, chunked not last", Words.CHUNKED_ONCE_LAST),
  CHUNKED_TWICE(400, "Bad Transfer-Encoding, multiple chunked tokens", Words.CHUNKED_ONCE_LAST),
  /** RFC 9112 §6.3: two lengths, even equal, could each be read as the body's. */
  TWO_CONTENT_LENGTHS(
      400,
      HttpCompliance.Violation.MULTIPLE_CONTENT_LENGTHS.getDescription(),
      "the request has more than one Content-Length field, which could frame its body more than"
          + " one way (RFC 9112 §6.3): send one"),
  /** RFC 9112 §6.1: a proxy in front may have framed the body by either. */
  LENGTH_AND_TRANSFER_CODING(
      400,
      HttpCompliance.Violation.TRANSFER_ENCODING_WITH_CONTENT_LENGTH.getDescription(),
      "the request has both Transfer-Encoding and Content-Length, which frame its body two ways"
          + " (RFC 9112 §6.1): send one of them"),
  TWO_HOSTS(
      400,
      HttpCompliance.Violation.DUPLICATE_HOST_HEADERS.getDescription(),
      "the request has more than one Host field (RFC 9112 §3.2): send one, naming this server"),
  NO_HOST(
      400,
      "No Host",
      "an HTTP/1.1 request needs a Host field (RFC 9112 §3.2): send one naming this server"),
  /** A request line of two words, method and target: HTTP/0.9, which has no headers. */
  HTTP_0_9(
      505,
      HttpCompliance.Violation.HTTP_0_9.getDescription(),
      "the request line names no HTTP version (HTTP/0.9, which this listener does not speak): end"
          + " it with HTTP/1.1 (or HTTP/1.0)"),
  /** RFC 9112 §2.2 lets a server refuse a bare LF, and this listener does (SPEC.md 70). */
  BARE_LF(400, HttpCompliance.Violation.LF_HEADER_TERMINATION.getDescription(), Words.CRLF_LINES),
  BARE_LF_IN_CHUNK(
      400, HttpCompliance.Violation.LF_CHUNK_TERMINATION.getDescription(), Words.CRLF_LINES),
  /**
   * Jetty's parser adds up a Content-Length's digits with overflow checks, and answers one past
   * 2⁶³−1 with its bare "Bad Request", an {@link ArithmeticException} its only trace.
   */
  CONTENT_LENGTH_TOO_LARGE(
      400,
      "Bad Request",
      "Content-Length is larger than any length a body can have (2^63-1 bytes): send the body's"
          + " own length"),
  CONTENT_LENGTH_NOT_DIGITS(
      400,
      "Invalid Content-Length Value",
      "Content-Length must be decimal digits alone, no sign, space or list (RFC 9110 §8.6)"),
  /** Jetty's HostPort refuses userinfo, a port out of 0–65535, and characters no host holds. */
  HOST_NOT_HOST_AND_PORT(
      400,
      "Bad HostPort",
      "the Host field must be a host name or address with an optional port from 0 to 65535, and"
          + " nothing else (no userinfo, path or space; RFC 9110 §7.2)"),
  HOST_BLANK(400, "Blank Host", "the Host field is empty: name this server in it (RFC 9110 §7.2)"),
  /** RFC 9110 §10.1.1: 100-continue is the only expectation defined. */
  EXPECTATION_UNKNOWN(
      417,
      "Expectation Failed",
      "Expect names an expectation other than 100-continue, the only one this server meets (RFC"
          + " 9110 §10.1.1): send Expect: 100-continue or no Expect field"),
  /** RFC 9110 §7.1: a fragment is the client's own; it is never sent. */
  FRAGMENT(
      400,
      "Fragment",
      "the request target holds a fragment (#…), which a client keeps to itself (RFC 9110 §7.1):"
          + " send the target without it"),
  /** RFC 9110 §4.2.4: userinfo is deprecated in http URIs, and Jetty refuses it. */
  USER_INFO(
      400,
      "Deprecated User Info",
      "the request target holds userinfo (user@host), which http URIs no longer carry (RFC 9110"
          + " §4.2.4): send the target without it"),
  REQUEST_LINE_TOO_LONG(
      414,
      "URI Too Long",
      "the request line is longer than the {limit} bytes this server reads: send a shorter target"),
  HEADER_FIELDS_TOO_LARGE(
      431,
      "Request Header Fields Too Large",
      "the request line and header fields together are larger than the {limit} bytes this server"
          + " reads: send fewer or shorter fields"),
  VERSION_UNKNOWN(
      505,
      "Unknown Version",
      "the request line names an HTTP version this listener does not speak: send HTTP/1.1 (or"
          + " HTTP/1.0)"),
  VERSION_UNSUPPORTED(
      505,
      "Unsupported Version",
      "the request line names an HTTP version this listener does not speak: send HTTP/1.1 (or"
          + " HTTP/1.0)"),
  /**
   * Jetty's parser names the character and the kind it has, not where it stood; the words say where
   * it may have been and keep Jetty's description of it.
   */
  ILLEGAL_CHARACTER(
      400,
      "Illegal character ",
      "the request line or a header line holds a character HTTP does not allow where it stands (a"
          + " field name takes letters, digits and !#$%&'*+-.^_`|~ only and ends at its colon, RFC"
          + " 9110 §5.1; a field value takes no control character but tab, §5.5): "),
  /** RFC 9112 §2.2: a CR that does not begin a CRLF. */
  BARE_CR(
      400,
      "Bad EOL",
      "a line holds a CR that is not followed by LF (RFC 9112 §2.2): end each line with CRLF, and"
          + " send no CR inside one"),
  /**
   * A target in authority form ({@code host:port}) on any method but CONNECT, or another text that
   * is neither a path nor an absolute URI: Jetty's URI parser fails it on its scheme or on a path
   * that cannot follow an authority, and its bare "Bad Request" named nothing.
   */
  TARGET_NOT_A_PATH(
      400,
      "Bad Request",
      List.of("Bad scheme", "Relative path with authority"),
      "the request target is neither a path nor an http:// URI: send the path alone, beginning"
          + " with '/' (GET /v1/models); a host:port target (authority form, RFC 9112 §3.2.3) is"
          + " CONNECT's, and this server is no proxy"),
  /** RFC 9112 §3.2: {@code *} is OPTIONS's alone, and any other target begins with a slash. */
  TARGET_NOT_ROOTED(
      400,
      "Bad URI path",
      "the request target must be a path beginning with '/' (GET /v1/models) or an absolute"
          + " http:// URI; '*' is OPTIONS's alone (RFC 9112 §3.2.4)"),
  /** RFC 9112 §3.2.3: a CONNECT target is a host and a port, and nothing else. */
  CONNECT_TARGET_NOT_AUTHORITY(
      400,
      "Bad Request",
      List.of("Bad Authority"),
      "a CONNECT target is a host and port alone (RFC 9112 §3.2.3), and this server is no proxy:"
          + " it serves no CONNECT; send GET or POST to a /v1/ path"),
  /** An absolute-form target whose authority holds %-escapes or stray characters. */
  TARGET_AUTHORITY(
      400,
      "Bad Request",
      List.of("Bad authority"),
      "the request target's authority is not a host with an optional port (no %-escapes in it):"
          + " send the path alone with Host naming this server"),
  /** RFC 3986 §2.1: a percent sign begins a two-hex-digit escape, nothing else. */
  BAD_ESCAPE(400, "Bad Request", List.of("Bad URI % encoding", "!hex"), Words.BAD_ESCAPE),
  /** Jetty's name for a %u escape, which is no escape in a URI. */
  UTF16_ESCAPE(400, UriCompliance.Violation.UTF16_ENCODINGS.getDescription(), Words.BAD_ESCAPE),
  BAD_PERCENT_ENCODING(
      400, UriCompliance.Violation.BAD_PERCENT_ENCODING.getDescription(), Words.BAD_ESCAPE),
  /** Jetty refuses a path whose {@code ..} segments climb above the root. */
  PATH_ABOVE_ROOT(
      400,
      "Bad Request",
      List.of("Bad URI"),
      "the path climbs above the root with '..' segments: send the path from the root without"
          + " them"),
  /** An escaped control character (%00 to %1F, %7F) in a path. */
  ILLEGAL_PATH_CHARACTER(
      400, "Bad Request", List.of("Illegal character in path"), Words.CHARACTER_IN_PATH),
  SUSPICIOUS_PATH_CHARACTER(
      400,
      UriCompliance.Violation.SUSPICIOUS_PATH_CHARACTERS.getDescription(),
      Words.CHARACTER_IN_PATH),
  ILLEGAL_PATH_CHARACTERS(
      400,
      UriCompliance.Violation.ILLEGAL_PATH_CHARACTERS.getDescription(),
      Words.CHARACTER_IN_PATH),
  /**
   * {@code %2e} as a whole segment, or doubled: a dot segment read one way by a proxy that decodes
   * it and another by one that does not.
   */
  ENCODED_DOT_SEGMENT(
      400,
      UriCompliance.Violation.AMBIGUOUS_PATH_SEGMENT.getDescription(),
      "the path holds an encoded dot segment (%2e or %2e%2e as a whole segment), which a proxy in"
          + " front may read as '.' or '..' and this server would not: send the path without it"),
  EMPTY_SEGMENT(
      400,
      UriCompliance.Violation.AMBIGUOUS_EMPTY_SEGMENT.getDescription(),
      "the path holds an empty segment (//): send it with single slashes (/v1/models)");

  private final int status;
  private final String jettyWords;

  /**
   * For a refusal Jetty words only as its status's reason phrase: the openings of the messages of
   * the causes it is told by; empty where {@link #jettyWords} alone tells it. Always a {@code
   * List.of}, which cannot be changed.
   */
  @SuppressWarnings("ImmutableEnumChecker")
  private final List<String> causeWords;

  private final String words;

  ParserRefusal(int status, String jettyWords, String words) {
    this(status, jettyWords, List.of(), words);
  }

  ParserRefusal(int status, String jettyWords, List<String> causeWords, String words) {
    this.status = status;
    this.jettyWords = jettyWords;
    this.causeWords = causeWords;
    this.words = words;
  }

  /**
   * What the client is told for the refusal Jetty gave with {@code status} and {@code message},
   * when it is one of these: the fault, and what to send instead.
   *
   * @param cause what Jetty refused the request with, and what that was caused by
   * @param headBytes the most bytes of request line, and of header fields, the listener reads
   */
  static Optional<String> words(
      int status, String message, @Nullable Throwable cause, int headBytes) {
    for (ParserRefusal r : values()) {
      if (r.status != status
          || (r == CONTENT_LENGTH_TOO_LARGE && !causedBy(cause, ArithmeticException.class))
          || (!r.causeWords.isEmpty() && !causeSays(cause, r.causeWords))) {
        continue;
      }
      if (r == ILLEGAL_CHARACTER && message.startsWith(r.jettyWords)) {
        return Optional.of(r.words + message.substring(r.jettyWords.length()));
      }
      if (r.jettyWords.equals(message)) {
        return Optional.of(r.words.replace("{limit}", Integer.toString(headBytes)));
      }
    }
    // Jetty joins the URI violations one target commits ("Suspicious Path Character, Illegal Path
    // Character"); each is reworded when all of them can be.
    if (message.contains(", ")) {
      List<String> each = new java.util.ArrayList<>();
      for (String part : message.split(", ", -1)) {
        Optional<String> w = words(status, part, null, headBytes);
        if (w.isEmpty()) {
          return Optional.empty();
        }
        if (!each.contains(w.get())) {
          each.add(w.get());
        }
      }
      return Optional.of(String.join("; and ", each));
    }
    return Optional.empty();
  }

  /** Whether a message in {@code t}'s chain of causes begins with one of {@code openings}. */
  private static boolean causeSays(@Nullable Throwable t, List<String> openings) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = c.getMessage();
      if (m != null && openings.stream().anyMatch(m::startsWith)) {
        return true;
      }
    }
    return false;
  }

  private static boolean causedBy(@Nullable Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  /** Words that more than one refusal gives (a nested class, so the constants can name them). */
  private static final class Words {
    static final String BAD_ESCAPE =
        "the request target holds a '%' that is not followed by two hex digits (RFC 3986 §2.1;"
            + " %uXXXX is no URI escape): send a '%' itself as %25, and any other character as"
            + " the %XX escapes of its UTF-8 bytes";
    static final String CHARACTER_IN_PATH =
        "the path holds a character no path here has, raw or %-escaped (a control character,"
            + " %00 to %1F or %7F, or a backslash), or one that must be %-escaped (a space, a byte"
            + " outside ASCII): send other characters as the %XX escapes of their UTF-8 bytes";
    static final String CHUNKED_ONCE_LAST =
        "Transfer-Encoding must list chunked once, as its last coding (RFC 9112 §6.1); this one"
            + " names a coding after it, names none at all (an empty value, or only commas), or a"
            + " Transfer-Encoding field follows the one naming it; send Transfer-Encoding: chunked"
            + " alone, or a Content-Length";
    static final String CRLF_LINES =
        "a line ends with a bare LF, without its CR (RFC 9112 §2.2): end the request line, each"
            + " header field and each chunk line with CRLF";

    private Words() {}
  }
}
