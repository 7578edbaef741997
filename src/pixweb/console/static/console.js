// The console's only script: copy buttons. Pages read and work without it (the code stays selectable).
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    const status = document.getElementById("copy-status");
    if (!source) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      source.select();
      try {
        await navigator.clipboard.writeText(source.value);
        if (status) status.textContent = "Copied.";
      } catch {
        if (status) status.textContent = "Selected: press Ctrl+C to copy.";
      }
    });
  }
});
