package dev.eventide.trends.query;

import java.util.ArrayList;
import java.util.List;

/** Splits a query file into tokens, skipping whitespace and {@code --} comments. */
final class Tokenizer {

  enum Kind {
    WORD,
    NUMBER,
    STRING,
    SYMBOL,
    END
  }

  record Token(Kind kind, String text, int line, int column) {
    /** How the token reads in an error message. */
    String describe() {
      return switch (kind) {
        case END -> "the end of the file";
        case STRING -> "\"" + text + "\"";
        default -> "'" + text + "'";
      };
    }
  }

  private Tokenizer() {}

  /**
   * A character as a message can show it: its code point, and the character itself only if it is
   * visible (never an invisible format character, a control or a lone surrogate).
   */
  static String describe(int codePoint) {
    String code = String.format("U+%04X", codePoint);
    int type = Character.getType(codePoint);
    boolean invisible =
        Character.isISOControl(codePoint)
            || Character.isWhitespace(codePoint)
            || Character.isSpaceChar(codePoint)
            || type == Character.FORMAT
            || type == Character.SURROGATE
            || type == Character.PRIVATE_USE
            || type == Character.UNASSIGNED;
    return invisible ? code : "'" + new String(Character.toChars(codePoint)) + "' (" + code + ")";
  }

  static List<Token> tokenize(String text) {
    List<Token> tokens = new ArrayList<>();
    int line = 1;
    int lineStart = 0;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      int column = i - lineStart + 1;
      if (c == '\n') {
        line++;
        lineStart = ++i;
      } else if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '-' && i + 1 < text.length() && text.charAt(i + 1) == '-') {
        while (i < text.length() && text.charAt(i) != '\n') {
          i++;
        }
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < text.length()
            && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        tokens.add(new Token(Kind.WORD, text.substring(start, i), line, column));
      } else if (Character.isDigit(c)
          || (c == '-' && i + 1 < text.length() && Character.isDigit(text.charAt(i + 1)))) {
        int start = i++;
        while (i < text.length()
            && (Character.isDigit(text.charAt(i))
                || (text.charAt(i) == '.'
                    && i + 1 < text.length()
                    && Character.isDigit(text.charAt(i + 1))))) {
          i++;
        }
        tokens.add(new Token(Kind.NUMBER, text.substring(start, i), line, column));
      } else if (c == '"' || c == '\'') {
        int end = text.indexOf(c, i + 1);
        int newline = text.indexOf('\n', i + 1);
        if (end < 0 || (newline >= 0 && newline < end)) {
          throw new QueryException(line, column, "unterminated string");
        }
        tokens.add(new Token(Kind.STRING, text.substring(i + 1, end), line, column));
        i = end + 1;
      } else {
        String two = i + 1 < text.length() ? text.substring(i, i + 2) : "";
        if (two.equals("<=") || two.equals(">=") || two.equals("!=")) {
          tokens.add(new Token(Kind.SYMBOL, two, line, column));
          i += 2;
        } else if ("(),.[]+*<>=".indexOf(c) >= 0) {
          tokens.add(new Token(Kind.SYMBOL, String.valueOf(c), line, column));
          i++;
        } else {
          throw new QueryException(
              line, column, "unexpected character " + describe(text.codePointAt(i)));
        }
      }
    }
    tokens.add(new Token(Kind.END, "", line, text.length() - lineStart + 1));
    return tokens;
  }
}
