// The empty conversation: what to try.
import { useAppInfo } from "../state/appInfo";

export const SUGGESTIONS = [
  "Create a skill that turns meeting notes into a list of action items",
  "Profile a sample CSV file and summarise what is in it",
  "Help me write a short report",
];

export function Welcome({ onPick, disabled }: { onPick: (text: string) => void; disabled: boolean }) {
  const { defaultModel } = useAppInfo();
  return (
    <div className="welcome" data-testid="welcome">
      <h2>What should we work on?</h2>
      <p className="muted">
        The agent picks a skill that fits, reads it, and follows it with tools in a sandbox. Files it makes show
        up in the Files panel; a packaged <code>.skill</code> can be installed with one click.
      </p>
      {defaultModel?.demo && (
        <p className="demo-note" role="note">
          This server uses a <strong>scripted demo</strong> model: its answers are prerecorded. Try the prompts
          below.
        </p>
      )}
      <ul className="suggestions">
        {SUGGESTIONS.map((s) => (
          <li key={s}>
            <button type="button" className="suggestion" onClick={() => onPick(s)} disabled={disabled}>
              {s}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
