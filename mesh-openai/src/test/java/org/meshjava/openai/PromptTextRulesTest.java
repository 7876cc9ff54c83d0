package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The prompt text's rules written as loops (a role's characters, a message length's digits, the
 * text of exact size) against the patterns and the string building they replace (SPEC.md section
 * 70): every role and length either way decides alike, and the text is the same bytes.
 */
class PromptTextRulesTest {
  private static final Pattern ROLE = Pattern.compile("[A-Za-z0-9_-]{1,32}");
  private static final Pattern LENGTH = Pattern.compile("0|[1-9][0-9]{0,9}");

  /** The text as the pattern-era code wrote it: a header string per message, a growing buffer. */
  private static byte[] reference(List<Prompt.Message> messages) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Prompt.Message m : messages) {
      byte[] content = m.content().getBytes(StandardCharsets.UTF_8);
      out.writeBytes((m.role() + " " + content.length + "\n").getBytes(StandardCharsets.US_ASCII));
      out.writeBytes(content);
      out.write('\n');
    }
    return out.toByteArray();
  }

  @Test
  void isRole_decidesAsThePattern_forEveryCharacterAndEveryLengthAroundTheBound() {
    for (char c = 0; c < 0x3000; c++) {
      String one = String.valueOf(c);
      assertThat(Prompt.isRole(one)).as("U+%04X", (int) c).isEqualTo(ROLE.matcher(one).matches());
      String inside = "ab" + c + "cd";
      assertThat(Prompt.isRole(inside))
          .as("ab U+%04X cd", (int) c)
          .isEqualTo(ROLE.matcher(inside).matches());
    }
    for (int n = 0; n <= 34; n++) {
      String role = "r".repeat(n);
      assertThat(Prompt.isRole(role)).as("%d chars", n).isEqualTo(ROLE.matcher(role).matches());
    }
  }

  @Test
  void parse_refusesEveryLengthThePatternRefused_andReadsTheRest() {
    List<String> lengths =
        List.of(
            "",
            "0",
            "00",
            "01",
            "1",
            "5",
            "05",
            "+5",
            "-5",
            " 5",
            "5 ",
            "1a",
            "a1",
            "9999999999",
            "99999999999",
            "1234567890",
            "01234567890",
            "\u0665",
            "0x5",
            // The bytes either side of '0'..'9' ('/' and ':'): a digit range off by one takes them.
            "/",
            ":",
            "1/",
            "4:");
    for (String length : lengths) {
      byte[] text = ("user " + length + "\nhello\n").getBytes(StandardCharsets.UTF_8);
      if (!LENGTH.matcher(length).matches()) {
        assertThatThrownBy(() -> Prompt.parse(text))
            .as("length '%s'", length)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("bad length at byte 5");
      } else if (length.equals("5")) {
        assertThat(Prompt.parse(text).messages())
            .containsExactly(new Prompt.Message("user", "hello"));
      } else {
        // A well-formed length that does not fit the text: cut short, as before.
        assertThatThrownBy(() -> Prompt.parse(text))
            .as("length '%s'", length)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageNotContaining("bad length");
      }
    }
  }

  @Test
  void bytes_areTheReferenceText_andParseBackToTheSameMessages_atEveryDigitCount() {
    Random random = new Random(31);
    String[] pieces = {"a", "é", "€", "😀", "\n", " ", "7"};
    for (int round = 0; round < 300; round++) {
      List<Prompt.Message> messages = new ArrayList<>();
      int count = 1 + random.nextInt(4);
      for (int k = 0; k < count; k++) {
        int size = random.nextInt(round % 4 == 0 ? 12_000 : 40);
        StringBuilder content = new StringBuilder();
        while (content.length() < size) {
          content.append(pieces[random.nextInt(pieces.length)]);
        }
        String role = "r_-9Z".substring(0, 1 + random.nextInt(5)).repeat(1 + random.nextInt(6));
        messages.add(new Prompt.Message(role, content.toString()));
      }
      Prompt prompt = new Prompt(messages);
      byte[] expected = reference(messages);
      assertThat(prompt.bytes()).isEqualTo(expected);
      assertThat(Prompt.parse(expected)).isEqualTo(prompt);
    }
    for (int length : new int[] {0, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 100_000}) {
      Prompt prompt = new Prompt(List.of(new Prompt.Message("user", "x".repeat(length))));
      assertThat(prompt.bytes()).as("%d bytes", length).isEqualTo(reference(prompt.messages()));
    }
  }
}
