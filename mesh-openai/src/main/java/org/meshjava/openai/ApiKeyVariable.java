package org.meshjava.openai;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The environment variable an upstream's bearer token is read from ({@code mesh serve}'s {@code
 * api_key_env}, the Spring starter's {@code api-key-env}), held to one rule for both: the variable
 * must hold a key a header can carry, and a refusal never repeats the value, nor a name that may be
 * the key itself.
 */
public final class ApiKeyVariable {
  /** An environment variable's name as shells and their users write one: {@code OPENAI_API_KEY}. */
  private static final Pattern CONVENTIONAL_NAME = Pattern.compile("[A-Z_][A-Z0-9_]*");

  private ApiKeyVariable() {}

  /**
   * The bearer token that environment variable {@code name} holds ({@code value}, as {@link
   * System#getenv(String)} gave it), refused unless it is one: unset, empty or blank (an {@code
   * OPENAI_API_KEY=} line left in an environment file) it would be sent as {@code Authorization:
   * Bearer } and every request refused by the upstream, far from the cause; with a line break or
   * another control character it cannot go in a header at all, and with a character outside ASCII
   * it is no bearer token, so every request would fail. The value itself is never named, nor a name
   * that is not one of capitals, digits and {@code _}: such a "name" is most often the key itself,
   * written where its variable's name belongs, and a refusal quoting it would put the key in a log.
   *
   * @param setting the setting that names the variable, as the operator wrote it ({@code
   *     api_key_env}), said in place of a name that is not repeated
   * @param name the variable's name, as the setting gives it
   * @param value the variable's value, null where it is not set
   * @return {@code value}, a key that a header carries as it is
   * @throws IllegalArgumentException naming the variable (as above) and what is wrong with it, or
   *     saying that {@code setting} names none (empty); a caller puts the setting's place before it
   */
  public static String value(String setting, String name, @Nullable String value) {
    if (name.isBlank()) {
      throw new IllegalArgumentException(
          setting + " is empty; name the environment variable that holds the key");
    }
    String variable =
        "environment variable "
            + (CONVENTIONAL_NAME.matcher(name).matches()
                ? name
                : "that "
                    + setting
                    + " names (not repeated: not a name of capitals, digits and _, it may be the"
                    + " key itself)");
    if (value == null) {
      throw new IllegalArgumentException(variable + " is not set");
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(
          variable
              + " is set but "
              + (value.isEmpty() ? "empty" : "blank")
              + "; set it to the key");
    }
    String unfit = unfitForHeader(value);
    if (unfit != null) {
      throw new IllegalArgumentException(
          variable
              + " "
              + unfit
              + (unfit.contains("control") ? " (a key read from a file with its newline?)" : ""));
    }
    return value;
  }

  /**
   * What keeps {@code key} out of an {@code Authorization} header, in words that never quote it, or
   * null if nothing does. A control character (a line break) would end the header where the
   * plain-HTTP client writes it as text. A character outside ASCII is in no bearer token (RFC 6750
   * §2.1), and the two clients would send it differently (UTF-8 bytes, or Jetty's {@code ?}), so
   * every request would be refused by the upstream far from the cause: a typographic quote or a
   * no-break space copied from a web page with the key.
   */
  static @Nullable String unfitForHeader(String key) {
    if (key.chars().anyMatch(Character::isISOControl)) {
      return "holds a line break or another control character, which no header can carry";
    }
    if (key.chars().anyMatch(c -> c > 0x7E)) {
      return "holds a character outside ASCII, which no bearer token has (a typographic quote or"
          + " an invisible space copied with the key?)";
    }
    return null;
  }
}
