<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>tokinspect</name>
    <message>
        <source>class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>entries</source>
        <translation>条目数</translation>
    </message>
    <message>
        <source>share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>group</source>
        <translation>组</translation>
    </message>
    <message>
        <source>ids</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>stored bytes</source>
        <translation>存储字节</translation>
    </message>
    <message>
        <source>as text</source>
        <translation>文本形式</translation>
    </message>
    <message>
        <source>id</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>stored</source>
        <translation>存储值</translation>
    </message>
    <message>
        <source>real bytes</source>
        <translation>实际字节</translation>
    </message>
    <message>
        <source>GPT-2 char</source>
        <translation>GPT-2 字符</translation>
    </message>
    <message>
        <source>#</source>
        <translation>序号</translation>
    </message>
    <message>
        <source>result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>first divergence</source>
        <translation>首个分歧</translation>
    </message>
    <message>
        <source>explained by</source>
        <translation>归因</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>rule / class / most frequent spans</source>
        <translation>规则 / 类别 / 最常见片段</translation>
    </message>
    <message>
        <source>count</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <source>rules</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>host</source>
        <translation>主机端</translation>
    </message>
    <message>
        <source>board</source>
        <translation>板端</translation>
    </message>
    <message>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>first difference</source>
        <translation>首个差异</translation>
    </message>
    <message>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>old piece</source>
        <translation>旧片段</translation>
    </message>
    <message>
        <source>new piece</source>
        <translation>新片段</translation>
    </message>
    <message>
        <source>Open a contract.json (tokinspect contract freeze) to check the open tokenizer against it.</source>
        <translation>打开一个 contract.json（由 tokinspect contract freeze 生成），用它检查当前分词器。</translation>
    </message>
    <message>
        <source>piece</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>hex bytes</source>
        <translation>十六进制字节</translation>
    </message>
    <message>
        <source>chars</source>
        <translation>字符数</translation>
    </message>
    <message>
        <source>special</source>
        <translation>特殊</translation>
    </message>
    <message>
        <source>role</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>content</source>
        <translation>内容</translation>
    </message>
    <message>
        <source>Normalization left the text unchanged.</source>
        <translation>归一化未改变文本。</translation>
    </message>
    <message>
        <source>Long text: the trace is computed on request.</source>
        <translation>长文本：追踪需手动触发计算。</translation>
    </message>
    <message>
        <source>select a token to see its merges</source>
        <translation>选择一个 token 以查看其合并过程</translation>
    </message>
    <message>
        <source>tracing…</source>
        <translation>追踪中…</translation>
    </message>
    <message>
        <source>Normalization changed the text: {text}</source>
        <translation>归一化改变了文本：{text}</translation>
    </message>
    <message>
        <source>select a token to see its longest-match step</source>
        <translation>选择一个 token 以查看其最长匹配步骤</translation>
    </message>
    <message>
        <source>select a token to see the board engine's step</source>
        <translation>选择一个 token 以查看板端引擎的步骤</translation>
    </message>
    <message>
        <source>chunk {k}: {label}</source>
        <translation>块 {k}：{label}</translation>
    </message>
    <message>
        <source>Template: {source}</source>
        <translation>模板：{source}</translation>
    </message>
    <message>
        <source>{n} greedy steps (longest prefix match at each position, no merges)</source>
        <translation>{n} 步贪心匹配（每个位置取最长前缀匹配，无合并）</translation>
    </message>
    <message>
        <source>{n} chunks ({added} added-token matches)</source>
        <translation>{n} 个预分词块（{added} 处匹配到添加的 token）</translation>
    </message>
    <message>
        <source>greedy step {k} of {n}: candidates, shortest first</source>
        <translation>贪心匹配第 {k} 步，共 {n} 步：候选项，由短到长</translation>
    </message>
    <message>
        <source>{encoder} step {k} of {n}: what was tried, what was taken, and why</source>
        <translation>{encoder} 第 {k} 步，共 {n} 步：尝试了什么、采用了什么以及原因</translation>
    </message>
    <message>
        <source>chunk {k}: {label}: Unigram lattice, the pieces that start at each byte with their scores (best path highlighted)</source>
        <translation>块 {k}：{label}：Unigram 格，每个字节处起始的片段及其分数（最优路径高亮）</translation>
    </message>
    <message>
        <source>Template error: {error}</source>
        <translation>模板错误：{error}</translation>
    </message>
    <message>
        <source>; {n} bytes dropped</source>
        <translation>；丢弃 {n} 字节</translation>
    </message>
    <message>
        <source>{n} board-engine steps ({encoder}: the real kestrel-llm tokenizer; no normalizer, no merges)</source>
        <translation>{n} 步板端引擎步骤（{encoder}：真实的 kestrel-llm 分词器；无归一化，无合并）</translation>
    </message>
    <message>
        <source>; {n} bytes became id 0</source>
        <translation>；{n} 字节变成了 ID 0</translation>
    </message>
    <message>
        <source>; {n} spaces lost</source>
        <translation>；丢失 {n} 个空格</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Script</source>
        <translation>文字</translation>
    </message>
    <message>
        <source>Lines</source>
        <translation>行数</translation>
    </message>
    <message>
        <source>Characters</source>
        <translation>字符数</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>token 数</translation>
    </message>
    <message>
        <source>Tok/char</source>
        <translation>token/字符</translation>
    </message>
    <message>
        <source>p95</source>
        <translation>P95</translation>
    </message>
    <message>
        <source>Parity</source>
        <translation>均等比</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力开销</translation>
    </message>
    <message>
        <source>whole documents</source>
        <translation>整篇文档</translation>
    </message>
    <message>
        <source>aligned lines</source>
        <translation>对齐的行</translation>
    </message>
    <message>
        <source>Open a corpus: a folder of &lt;language&gt;.txt files (e.g. UDHR's), .jsonl, .parquet or .arrow.</source>
        <translation>打开语料：一个 &lt;语言&gt;.txt 文件的文件夹（如 UDHR 的），或 .jsonl、.parquet、.arrow 文件。</translation>
    </message>
    <message>
        <source>{corpus}: {n} languages · reference {ref} · parity over {mode} · attention cost = parity² · {series}</source>
        <translation>{corpus}：{n} 种语言 · 参考语言 {ref} · 均等比按{mode}计算 · 注意力开销 = 均等比² · {series}</translation>
    </message>
    <message>
        <source>{corpus}: measuring…</source>
        <translation>{corpus}：测量中…</translation>
    </message>
    <message>
        <source>{stage}: kept {n} · mass {mass} · H {h} bits</source>
        <translation>{stage}：保留 {n} 个 · 概率质量 {mass} · 熵 {h} bit</translation>
    </message>
    <message>
        <source>Board</source>
        <translation>板端</translation>
    </message>
    <message>
        <source>Saved profiles (passwords and passphrases are never saved)</source>
        <translation>已保存的配置（密码和口令从不保存）</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>192.168.1.50</source>
        <translation>例如 192.168.1.50</translation>
    </message>
    <message>
        <source>~/.ssh/id_ed25519 (empty: agent or password)</source>
        <translation>~/.ssh/id_ed25519（留空：使用 agent 或密码）</translation>
    </message>
    <message>
        <source>use ssh-agent</source>
        <translation>使用 ssh-agent</translation>
    </message>
    <message>
        <source>The board's C compiler command (used to build the deployed engine)</source>
        <translation>板端的 C 编译器命令（用于构建部署的引擎）</translation>
    </message>
    <message>
        <source>(none)  e.g. qemu-aarch64-static</source>
        <translation>（无）例如 qemu-aarch64-static</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>not connected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <source>Encode on the board</source>
        <translation>在板端编码</translation>
    </message>
    <message>
        <source>deploy tokcore</source>
        <translation>部署 tokcore</translation>
    </message>
    <message>
        <source>Upload the engine's C sources, build them with the board's compiler (reused while the sources are unchanged), run tokcore encode --jsonl</source>
        <translation>上传引擎的 C 源码，用板端编译器构建（源码未变时复用），运行 tokcore encode --jsonl</translation>
    </message>
    <message>
        <source>board's own command</source>
        <translation>板端自带命令</translation>
    </message>
    <message>
        <source>/path/on/board/vocab.bin or tokenizer.json</source>
        <translation>板端路径，如 /path/on/board/vocab.bin 或 tokenizer.json</translation>
    </message>
    <message>
        <source>Board tokenizer</source>
        <translation>板端分词器</translation>
    </message>
    <message>
        <source>The deployed engine's encoder: bpe HF-exact; greedy the ideal longest match; kestrel-v1/v2 the real board engine</source>
        <translation>部署引擎的编码器：bpe 与 HF 完全一致；greedy 为理想的最长匹配；kestrel-v1/v2 为真实板端引擎</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>What the board's ids are compared with on the host</source>
        <translation>主机端用来与板端 ID 比对的编码器</translation>
    </message>
    <message>
        <source>Host encoder</source>
        <translation>主机端编码器</translation>
    </message>
    <message>
        <source>./probe --vocab {tokenizer} {input}</source>
        <translation>例如 ./probe --vocab {tokenizer} {input}</translation>
    </message>
    <message>
        <source>Run on the board. {tokenizer}: the board tokenizer path; {input}: an uploaded file with one text per line (without {input} the texts go to stdin). Paths are quoted; texts never enter the command line.</source>
        <translation>在板端运行。{tokenizer}：板端分词器路径；{input}：上传的文件，每行一条文本（不含 {input} 时文本经 stdin 传入）。路径会加引号；文本从不进入命令行。</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>jsonl: one JSON object with "ids" (or an array) per text; ints: integers separated by spaces or commas, one line per text; regex: one group per id</source>
        <translation>jsonl：每条文本一个含 "ids" 的 JSON 对象（或数组）；ints：以空格或逗号分隔的整数，每条文本一行；regex：每个 ID 一个捕获组</translation>
    </message>
    <message>
        <source>id=(\d+)</source>
        <translation>例如 id=(\d+)</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>lines: one text per line (a text with a line break goes by itself); jsonl: one JSON string per line; per-text: one exec per text</source>
        <translation>lines：每行一条文本（含换行的文本单独发送）；jsonl：每行一个 JSON 字符串；per-text：每条文本执行一次</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>add special tokens</source>
        <translation>添加特殊 token</translation>
    </message>
    <message>
        <source>Open corpus…</source>
        <translation>打开语料…</translation>
    </message>
    <message>
        <source>texts below, one per line</source>
        <translation>下方文本，每行一条</translation>
    </message>
    <message>
        <source>One text per line (or open a corpus file)</source>
        <translation>每行一条文本（或打开语料文件）</translation>
    </message>
    <message>
        <source>Encode on board and diff</source>
        <translation>板端编码并比对</translation>
    </message>
    <message>
        <source>Identify engine</source>
        <translation>识别引擎</translation>
    </message>
    <message>
        <source>Run a fixed probe set through the board's tokenizer and name the engine (kestrel-v1, kestrel-v2, greedy, bpe) that reproduces every probe</source>
        <translation>用一组固定探针跑板端分词器，找出能复现全部探针的引擎（kestrel-v1、kestrel-v2、greedy、bpe）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Connect, then encode: the checks (tokenizer file sha256, uname -m, compiler, char signedness) show here.</source>
        <translation>先连接，再编码：检查项（分词器文件 sha256、uname -m、编译器、char 符号性）显示在这里。</translation>
    </message>
    <message>
        <source>What the board prints for its ids (the engine's server maps Ġ and Ċ back and drops other control markers)</source>
        <translation>板端为其 ID 打印的内容（引擎服务端把 Ġ 和 Ċ 映射回原字符，并丢弃其他控制标记）</translation>
    </message>
    <message>
        <source>Texts</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>Divergences by class / most frequent spans</source>
        <translation>按类别统计的分歧 / 最常见片段</translation>
    </message>
    <message>
        <source>Divergent spans of this text</source>
        <translation>本文本的分歧片段</translation>
    </message>
    <message>
        <source>Unknown host key</source>
        <translation>未知的主机密钥</translation>
    </message>
    <message>
        <source>Open a corpus (one text per line)</source>
        <translation>打开语料（每行一条文本）</translation>
    </message>
    <message>
        <source>{what}: {n} texts</source>
        <translation>{what}：{n} 条文本</translation>
    </message>
    <message>
        <source>{what}: 1 text</source>
        <translation>{what}：1 条文本</translation>
    </message>
    <message>
        <source>identifying the board's engine…</source>
        <translation>正在识别板端引擎…</translation>
    </message>
    <message>
        <source> (first {n} of {total})</source>
        <translation>（共 {total} 条，取前 {n} 条）</translation>
    </message>
    <message>
        <source>host: {n} tokens</source>
        <translation>主机端：{n} 个 token</translation>
    </message>
    <message>
        <source>{name}: {n} lines</source>
        <translation>{name}：{n} 行</translation>
    </message>
    <message>
        <source>board: {n}</source>
        <translation>板端：{n}</translation>
    </message>
    <message>
        <source>Open contract…</source>
        <translation>打开契约…</translation>
    </message>
    <message>
        <source>Vocabulary diff: A → B</source>
        <translation>词表差异：A → B</translation>
    </message>
    <message>
        <source>The Compare tab's tokenizers: A (the open one) → B</source>
        <translation>“对比”页的两个分词器：A（当前打开的）→ B</translation>
    </message>
    <message>
        <source>Diff the Compare tab's two tokenizers: ids whose piece changed meaning first.</source>
        <translation>比对“对比”页的两个分词器：片段含义改变的 ID 排在前面。</translation>
    </message>
    <message>
        <source>Open contract</source>
        <translation>打开契约</translation>
    </message>
    <message>
        <source>A folder of &lt;language&gt;.txt files (UDHR's udhr/txt), or .jsonl/.parquet/.arrow</source>
        <translation>一个 &lt;语言&gt;.txt 文件的文件夹（如 UDHR 的 udhr/txt），或 .jsonl/.parquet/.arrow</translation>
    </message>
    <message>
        <source>Add tokenizer…</source>
        <translation>添加分词器…</translation>
    </message>
    <message>
        <source>Measure another tokenizer beside the window's: one more series</source>
        <translation>在当前分词器之外再测一个分词器：多一组数据</translation>
    </message>
    <message>
        <source>The reference language: its parity is 1</source>
        <translation>参考语言：其均等比为 1</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Open a corpus folder (&lt;language&gt;.txt files)</source>
        <translation>打开语料文件夹（&lt;语言&gt;.txt 文件）</translation>
    </message>
    <message>
        <source>Add a tokenizer</source>
        <translation>添加分词器</translation>
    </message>
    <message>
        <source>Reference:</source>
        <translation>参考语言：</translation>
    </message>
    <message>
        <source>Encoder:</source>
        <translation>编码器：</translation>
    </message>
    <message>
        <source>typed text</source>
        <translation>输入的文本</translation>
    </message>
    <message>
        <source>chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>tokinspect</source>
        <translation>tokinspect</translation>
    </message>
    <message>
        <source>Type or paste text; each token is a colored span.</source>
        <translation>输入或粘贴文本；每个 token 显示为一段着色区域。</translation>
    </message>
    <message>
        <source>Trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>Stats</source>
        <translation>统计</translation>
    </message>
    <message>
        <source>Inspect</source>
        <translation>检视</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>词表</translation>
    </message>
    <message>
        <source>Sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>Contract</source>
        <translation>契约</translation>
    </message>
    <message>
        <source>Languages</source>
        <translation>多语言</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open Tokenizer…</source>
        <translation>打开分词器(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Open &amp;Default Tokenizer (Qwen3)</source>
        <translation>打开默认分词器 (Qwen3)(&amp;D)</translation>
    </message>
    <message>
        <source>Open &amp;Text…</source>
        <translation>打开文本(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>重新加载(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Export Tokens…</source>
        <translation>导出 token(&amp;E)…</translation>
    </message>
    <message>
        <source>Copy Token &amp;Ids</source>
        <translation>复制 token ID(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Show &amp;Whitespace</source>
        <translation>显示空白字符(&amp;W)</translation>
    </message>
    <message>
        <source>Add &amp;Special Tokens (post-processor)</source>
        <translation>添加特殊 token（后处理器）(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Dark Theme</source>
        <translation>深色主题(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Language (applies on restart)</source>
        <translation>语言（重启后生效）(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Cancel Long Work</source>
        <translation>取消耗时任务(&amp;C)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Open tokenizer</source>
        <translation>打开分词器</translation>
    </message>
    <message>
        <source>Open text</source>
        <translation>打开文本</translation>
    </message>
    <message>
        <source>Tokenizer changed on disk</source>
        <translation>磁盘上的分词器已更改</translation>
    </message>
    <message>
        <source>Export tokens</source>
        <translation>导出 token</translation>
    </message>
    <message>
        <source>copied ids</source>
        <translation>已复制 ID</translation>
    </message>
    <message>
        <source>  · ⚠ HF refuses this file</source>
        <translation>  · ⚠ HF 拒绝加载此文件</translation>
    </message>
    <message>
        <source>  · ⚠ embedding rows</source>
        <translation>  · ⚠ 嵌入行</translation>
    </message>
    <message>
        <source>Could not open the tokenizer</source>
        <translation>无法打开分词器</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Open tokenizer B</source>
        <translation>打开分词器 B</translation>
    </message>
    <message>
        <source> encoder </source>
        <translation> 编码器 </translation>
    </message>
    <message>
        <source>bpe: HF-exact merges; rank: tiktoken lowest-rank pair; greedy: the ideal longest-prefix match; kestrel-v1/v2: the real board engine (kestrel-llm)</source>
        <translation>bpe：与 HF 完全一致的合并；rank：tiktoken 的最低 rank 配对；greedy：理想的最长前缀匹配；kestrel-v1/v2：真实板端引擎（kestrel-llm）</translation>
    </message>
    <message>
        <source>This engine build only has the bpe encoder (encode() takes no encoder=).</source>
        <translation>此引擎构建只有 bpe 编码器（encode() 不接受 encoder= 参数）。</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <source>no tokenizer</source>
        <translation>无分词器</translation>
    </message>
    <message>
        <source>The language changes when tokinspect starts again.</source>
        <translation>语言将在 tokinspect 下次启动时切换。</translation>
    </message>
    <message>
        <source>Could not open the text</source>
        <translation>无法打开文本</translation>
    </message>
    <message>
        <source>Encoding failed</source>
        <translation>编码失败</translation>
    </message>
    <message>
        <source>Compare failed</source>
        <translation>对比失败</translation>
    </message>
    <message>
        <source>Vocabulary diff failed</source>
        <translation>词表差异失败</translation>
    </message>
    <message>
        <source>Audit failed</source>
        <translation>审计失败</translation>
    </message>
    <message>
        <source>loading {path}…</source>
        <translation>正在加载 {path}…</translation>
    </message>
    <message>
        <source>copied {n} ids</source>
        <translation>已复制 {n} 个 ID</translation>
    </message>
    <message>
        <source>  ·  sha256 {sha}</source>
        <translation>  ·  SHA-256 校验 {sha}</translation>
    </message>
    <message>
        <source>{n} tokens · {chars} chars · {bytes} bytes</source>
        <translation>{n} 个 token · {chars} 个字符 · {bytes} 字节</translation>
    </message>
    <message>
        <source>{name}: {n} tokens</source>
        <translation>{name}：{n} 个 token</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>exported {n} tokens to {path}</source>
        <translation>已将 {n} 个 token 导出到 {path}</translation>
    </message>
    <message>
        <source>{name}  ·  {format}  ·  {sizes}</source>
        <translation>{name}  ·  格式 {format}  ·  {sizes}</translation>
    </message>
    <message>
        <source>Same segmentation: {n} tokens on both sides.</source>
        <translation>切分相同：两侧均为 {n} 个 token。</translation>
    </message>
    <message>
        <source>Trace this text</source>
        <translation>追踪此文本</translation>
    </message>
    <message>
        <source>select a token</source>
        <translation>请选择一个 token</translation>
    </message>
    <message>
        <source>Previous merge step (Alt+Left)</source>
        <translation>上一步合并 (Alt+Left)</translation>
    </message>
    <message>
        <source>Next merge step (Alt+Right)</source>
        <translation>下一步合并 (Alt+Right)</translation>
    </message>
    <message>
        <source>Token length (bytes)</source>
        <translation>token 长度（字节）</translation>
    </message>
    <message>
        <source>Open tokenizer B…</source>
        <translation>打开分词器 B…</translation>
    </message>
    <message>
        <source>B = A's tokenizer</source>
        <translation>B 使用 A 的分词器</translation>
    </message>
    <message>
        <source>B's encoder</source>
        <translation>B 的编码器</translation>
    </message>
    <message>
        <source>Open a second tokenizer, or pick another encoder for B.</source>
        <translation>打开第二个分词器，或为 B 选择另一个编码器。</translation>
    </message>
    <message>
        <source>message content; Enter adds it</source>
        <translation>消息内容；按 Enter 添加</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Remove selected</source>
        <translation>删除所选</translation>
    </message>
    <message>
        <source>add_generation_prompt</source>
        <translation>add_generation_prompt（追加生成提示）</translation>
    </message>
    <message>
        <source>Inspect rendered text</source>
        <translation>检视渲染后的文本</translation>
    </message>
    <message>
        <source>Diff on the board</source>
        <translation>在板端比对</translation>
    </message>
    <message>
        <source>Send the rendered prompt to the Board tab as one text: the report says whether every special token arrived whole</source>
        <translation>把渲染后的提示作为一条文本发送到“板端”页：报告会说明每个特殊 token 是否完整到达</translation>
    </message>
    <message>
        <source>&lt;b&gt;vocab.bin audit&lt;/b&gt;</source>
        <translation>&lt;b&gt;vocab.bin 审计&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Audit as vocab.bin</source>
        <translation>按 vocab.bin 审计</translation>
    </message>
    <message>
        <source>Compile this tokenizer to vocab.bin (in a temporary file) and audit that</source>
        <translation>把此分词器编译为 vocab.bin（临时文件）并审计</translation>
    </message>
    <message>
        <source>Identical stored bytes</source>
        <translation>存储字节相同</translation>
    </message>
    <message>
        <source>search: text, id (123 or #123), or hex bytes (e4 bd a0 / 0x20)</source>
        <translation>搜索：文本、ID（123 或 #123）或十六进制字节（e4 bd a0 / 0x20）</translation>
    </message>
    <message>
        <source>Previous greedy step (Alt+Left)</source>
        <translation>上一步贪心匹配 (Alt+Left)</translation>
    </message>
    <message>
        <source>Next greedy step (Alt+Right)</source>
        <translation>下一步贪心匹配 (Alt+Right)</translation>
    </message>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>encoder B:</source>
        <translation>编码器 B：</translation>
    </message>
    <message>
        <source>this engine build has only the bpe encoder</source>
        <translation>此引擎构建只有 bpe 编码器</translation>
    </message>
    <message>
        <source>auditing…</source>
        <translation>审计中…</translation>
    </message>
    <message>
        <source>reading the vocabulary…</source>
        <translation>正在读取词表…</translation>
    </message>
    <message>
        <source>Token length histogram needs pyqtgraph</source>
        <translation>token 长度直方图需要 pyqtgraph</translation>
    </message>
    <message>
        <source>Byte classes</source>
        <translation>字节类别</translation>
    </message>
    <message>
        <source>Probes (space, newline, 0xAD, 0x7F)</source>
        <translation>探针（空格、换行、0xAD、0x7F）</translation>
    </message>
    <message>
        <source>This tokenizer is not a vocab.bin. “Audit as vocab.bin” compiles it (as the board would get it) and audits the result.</source>
        <translation>此分词器不是 vocab.bin。“按 vocab.bin 审计”会把它编译成板端拿到的样子，再审计结果。</translation>
    </message>
    <message>
        <source>Identical stored bytes: {n} groups</source>
        <translation>存储字节相同：{n} 组</translation>
    </message>
    <message>
        <source>{n} of {total} tokens</source>
        <translation>{n} / {total} 个 token</translation>
    </message>
    <message>
        <source>row {k}/{n}</source>
        <translation>第 {k}/{n} 行</translation>
    </message>
    <message>
        <source>step {k}/{n}</source>
        <translation>第 {k}/{n} 步</translation>
    </message>
    <message>
        <source>final ({n} merges)</source>
        <translation>最终结果（{n} 次合并）</translation>
    </message>
    <message>
        <source> match {q}</source>
        <translation> 匹配 {q}</translation>
    </message>
    <message>
        <source>Open logits…</source>
        <translation>打开 logits…</translation>
    </message>
    <message>
        <source>.npy ([vocab] or [steps, vocab]), raw float32/float16/bfloat16, or text (one value per line)</source>
        <translation>.npy（[vocab] 或 [steps, vocab]）、原始 float32/float16/bfloat16，或文本（每行一个值）</translation>
    </message>
    <message>
        <source>Bigram demo: inspector text</source>
        <translation>二元模型演示：检视页文本</translation>
    </message>
    <message>
        <source>Demo logits: next-token counts of a bigram model built with the current tokenizer from the Inspect tab's text (not a real model)</source>
        <translation>演示用 logits：用当前分词器在“检视”页文本上建立的二元模型的下一 token 计数（并非真实模型）</translation>
    </message>
    <message>
        <source>…from a file</source>
        <translation>…从文件</translation>
    </message>
    <message>
        <source>no logits</source>
        <translation>无 logits</translation>
    </message>
    <message>
        <source>step –</source>
        <translation>步 –</translation>
    </message>
    <message>
        <source>temperature × 100</source>
        <translation>温度 × 100</translation>
    </message>
    <message>
        <source>log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <source>custom: stage order (drag) and each stage's rule</source>
        <translation>自定义：阶段顺序（拖动调整）及各阶段规则</translation>
    </message>
    <message>
        <source>Draw</source>
        <translation>抽样</translation>
    </message>
    <message>
        <source>Draw N</source>
        <translation>抽样 N 次</translation>
    </message>
    <message>
        <source>Draw: the engine's next token for this seed, and its RNG state.</source>
        <translation>抽样：该种子下引擎给出的下一个 token 及其随机数状态。</translation>
    </message>
    <message>
        <source>final p</source>
        <translation>最终概率</translation>
    </message>
    <message>
        <source>drawn share</source>
        <translation>抽中占比</translation>
    </message>
    <message>
        <source>Same logits, settings and seed: one row per engine, a column per top token (its final probability or the stage that cut it; red: fates differ), after the draw</source>
        <translation>相同的 logits、设置和种子：每个引擎一行，每个高概率 token 一列（其最终概率或截掉它的阶段；红色：结果不同），抽样之后</translation>
    </message>
    <message>
        <source>1 step</source>
        <translation>1 步</translation>
    </message>
    <message>
        <source>{mode}; stages in {ms} ms</source>
        <translation>{mode}；各阶段耗时 {ms} ms</translation>
    </message>
    <message>
        <source>step 0 of {n}</source>
        <translation>第 0 步，共 {n} 步</translation>
    </message>
    <message>
        <source>Drew {token}.  {rng}</source>
        <translation>抽中 {token}。  {rng}</translation>
    </message>
    <message>
        <source>step {k}</source>
        <translation>第 {k} 步</translation>
    </message>
    <message>
        <source>draw (seed {seed})</source>
        <translation>抽样（种子 {seed}）</translation>
    </message>
    <message>
        <source>Open logits</source>
        <translation>打开 logits</translation>
    </message>
    <message>
        <source>Text for the bigram demo</source>
        <translation>二元模型演示用文本</translation>
    </message>
    <message>
        <source>no logits: open a logits file, or type a text in the Inspect tab for the bigram demo</source>
        <translation>无 logits：打开 logits 文件，或在“检视”页输入文本以使用二元模型演示</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Key file</source>
        <translation>密钥文件</translation>
    </message>
    <message>
        <source>Compiler</source>
        <translation>编译器</translation>
    </message>
    <message>
        <source>Run prefix</source>
        <translation>运行前缀</translation>
    </message>
    <message>
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>characters</source>
        <translation>字符数</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>token 数</translation>
    </message>
    <message>
        <source>special tokens</source>
        <translation>特殊 token 数</translation>
    </message>
    <message>
        <source>tokens / char</source>
        <translation>token / 字符</translation>
    </message>
    <message>
        <source>tokens / byte</source>
        <translation>token / 字节</translation>
    </message>
    <message>
        <source>bytes / token</source>
        <translation>字节 / token</translation>
    </message>
    <message>
        <source>encode time</source>
        <translation>编码耗时</translation>
    </message>
    <message>
        <source>preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>T</source>
        <translation>温度 T</translation>
    </message>
    <message>
        <source>top-k</source>
        <translation>top-k 截断</translation>
    </message>
    <message>
        <source>top-p</source>
        <translation>top-p 截断</translation>
    </message>
    <message>
        <source>min-p</source>
        <translation>min-p 截断</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>bars</source>
        <translation>柱数</translation>
    </message>
    <message>
        <source>llama.cpp reads the GGUF its own way where it differs from the other file:</source>
        <translation>llama.cpp 按自己的方式读取该 GGUF，与另一个文件不同之处：</translation>
    </message>
    <message>
        <source>llama.cpp's recipe for the GGUF agrees with the other file on every aspect.</source>
        <translation>llama.cpp 对该 GGUF 的处理方式在各方面都与另一个文件一致。</translation>
    </message>
    <message>
        <source>{aspect}: llama.cpp {gguf} · file {json}</source>
        <translation>{aspect}：llama.cpp 为 {gguf} · 文件为 {json}</translation>
    </message>
    <message>
        <source>vocab {model} + {added} added = {total}</source>
        <translation>词表 {model} + 添加的 {added} = {total}</translation>
    </message>
    <message>
        <source>vocab {model}</source>
        <translation>词表 {model}</translation>
    </message>
    <message>
        <source>  ·  embedding {rows}</source>
        <translation>  ·  嵌入行数 {rows}</translation>
    </message>
    <message>
        <source>Qwen3 (embedded default)</source>
        <translation>Qwen3（内置默认）</translation>
    </message>
    <message>
        <source>Qwen3.5/3.6 (embedded)</source>
        <translation>Qwen3.5/3.6（内置）</translation>
    </message>
    <message>
        <source>{steps} merges → 1 token</source>
        <translation>{steps} 次合并 → 1 个 token</translation>
    </message>
    <message>
        <source>{steps} merges → {n} tokens</source>
        <translation>{steps} 次合并 → {n} 个 token</translation>
    </message>
    <message>
        <source>added token</source>
        <translation>添加的 token</translation>
    </message>
    <message>
        <source>longest of {n} candidates</source>
        <translation>{n} 个候选中最长的</translation>
    </message>
    <message>
        <source>{n} pieces, longest match first</source>
        <translation>{n} 个片段，最长匹配优先</translation>
    </message>
    <message>
        <source>rank {rank}</source>
        <translation>排名 {rank}</translation>
    </message>
    <message>
        <source>final</source>
        <translation>最终</translation>
    </message>
</context>
</TS>
