/**
 * Store credentials checked for shape before they are saved: a private key must be a whole PEM key, from its
 * BEGIN line to its END line, with a key body between them, so a key cut short when pasted is refused here
 * with what is wrong instead of being found out at the first review fetch.
 */
import { invalid } from "../../lib/errors.ts";

const BEGIN = /^-----BEGIN (EC |RSA )?PRIVATE KEY-----/;
const END = /-----END (EC |RSA )?PRIVATE KEY-----$/;

/** Refuses (422 naming `field`) a private key that is not a complete PEM private key. */
export function checkPrivateKey(pem: string, field: string): void {
  const text = pem.trim().replaceAll("\\n", "\n");
  if (!BEGIN.test(text)) {
    throw invalid(`${field}: paste the whole key file, starting with the line -----BEGIN PRIVATE KEY-----`);
  }
  if (!END.test(text)) {
    throw invalid(
      `${field}: the key is cut short: it must end with the line -----END PRIVATE KEY-----; paste the whole file`,
    );
  }
  const body = text.replace(BEGIN, "").replace(END, "").replace(/\s+/g, "");
  if (body.length < 32 || !/^[A-Za-z0-9+/=_-]+$/.test(body)) {
    throw invalid(`${field}: the lines between BEGIN and END are not a key; paste the key file as it is`);
  }
}
