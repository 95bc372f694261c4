/** Reading a received mail's subject in tests. */

/** The Subject header unfolded, its encoded words (RFC 2047, Q or B) read: the week's dates carry an en dash. */
export function subjectOf(raw: string): string {
  const header = raw.match(/^Subject: (.*(?:\r?\n[ \t].*)*)/m)?.[1] ?? "";
  return header.replace(/\?=\s+=\?/g, "?==?").replace(
    /=\?UTF-8\?([QB])\?([^?]*)\?=/gi,
    (_, enc: string, text: string) => {
      const bytes = enc.toUpperCase() === "B"
        ? Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0))
        : Uint8Array.from(
          text.replaceAll("_", " ").replace(/=([0-9A-F]{2})/gi, (_m, h: string) =>
            String.fromCharCode(parseInt(h, 16))),
          (ch) =>
            ch.charCodeAt(0),
        );
      return new TextDecoder().decode(bytes);
    },
  ).replace(/\s+/g, " ").trim();
}
