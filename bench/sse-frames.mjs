// The Server-Sent Events frames of a response, for the serve bench and its viewers' process: one place
// that splits the text at blank lines (the bench reads only `id:`, `event:` and one-line `data:` fields).

/** Calls onFrame(frame) with the text of each frame of `res` as it arrives. */
export function onSseFrames(res, onFrame) {
  let rest = "";
  res.setEncoding("utf8");
  res.on("data", (chunk) => {
    rest += chunk;
    for (let end = rest.indexOf("\n\n"); end !== -1; end = rest.indexOf("\n\n")) {
      onFrame(rest.slice(0, end));
      rest = rest.slice(end + 2);
    }
  });
}
