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
        <source>{n} divergent span covering {bytes} of {total} bytes; {same} tokens agree. A − B = {diff} tokens.</source>
        <translation>{n} 处分歧片段，覆盖 {total} 字节中的 {bytes} 字节；{same} 个 token 一致。A − B = {diff} 个 token。</translation>
    </message>
    <message>
        <source>{n} divergent spans covering {bytes} of {total} bytes; {same} tokens agree. A − B = {diff} tokens.</source>
        <translation>{n} 处分歧片段，覆盖 {total} 字节中的 {bytes} 字节；{same} 个 token 一致。A − B = {diff} 个 token。</translation>
    </message>
    <message>
        <source>en</source>
        <comment>the catalog's language code</comment>
        <translation>zh_CN</translation>
    </message>
    <message>
        <source>special tokens</source>
        <comment>count</comment>
        <translation>特殊 token 数</translation>
    </message>
    <message>
        <source>special tokens</source>
        <translation>特殊 token</translation>
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
    <message>
        <source>  ⚠ its draw is not reproducible (shown with a generic RNG).</source>
        <translation>  ⚠ 其抽样不可复现（以通用随机数生成器显示）。</translation>
    </message>
    <message>
        <source> (logits[0] is NaN: no logit compares greater, so it stays at id 0)</source>
        <translation>（logits[0] 为 NaN：没有 logit 比它大，因此停在 id 0）</translation>
    </message>
    <message>
        <source> (min_p cut first)</source>
        <translation>（min_p 先截断）</translation>
    </message>
    <message>
        <source> (non-finite left out)</source>
        <translation>（非有限值已排除）</translation>
    </message>
    <message>
        <source> (not reproducible)</source>
        <translation>（不可复现）</translation>
    </message>
    <message>
        <source> (p never reached)</source>
        <translation>（始终未达到 p）</translation>
    </message>
    <message>
        <source> (target {target})</source>
        <translation>（目标 {target}）</translation>
    </message>
    <message>
        <source>, which is not a final candidate</source>
        <translation>，它不在最终候选中</translation>
    </message>
    <message>
        <source>.</source>
        <translation>。</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>; {n} draw(s) outside the final candidates ({why})</source>
        <translation>；{n} 次抽样落在最终候选之外（{why}）</translation>
    </message>
    <message>
        <source>Board profiles: {reason}</source>
        <translation>板端配置：{reason}</translation>
    </message>
    <message>
        <source>Board {kind}</source>
        <translation>板端{kind}</translation>
    </message>
    <message>
        <source>Cannot connect to the board: {reason}</source>
        <translation>无法连接板端：{reason}</translation>
    </message>
    <message>
        <source>Connect to a board first.</source>
        <translation>请先连接板端。</translation>
    </message>
    <message>
        <source>Give the tokenizer file's path on the board.</source>
        <translation>请填写分词器文件在板端的路径。</translation>
    </message>
    <message>
        <source>Load a host tokenizer and give the board's tokenizer path.</source>
        <translation>请加载主机端分词器，并填写板端分词器的路径。</translation>
    </message>
    <message>
        <source>NaN and -inf are dropped; +inf entries share all the mass</source>
        <translation>NaN 与 -inf 被丢弃；+inf 项平分全部概率质量</translation>
    </message>
    <message>
        <source>No emulation reproduces every probe; closest: {engine}.</source>
        <translation>没有哪种模拟能复现全部探针；最接近的：{engine}。</translation>
    </message>
    <message>
        <source>No host tokenizer is loaded yet.</source>
        <translation>尚未加载主机端分词器。</translation>
    </message>
    <message>
        <source>No texts: type some (one per line) or open a corpus file.</source>
        <translation>没有文本：请输入（每行一条）或打开语料文件。</translation>
    </message>
    <message>
        <source>Open a tokenizer first: the bigram demo counts its tokens.</source>
        <translation>请先打开分词器：二元语法演示统计的是它的 token。</translation>
    </message>
    <message>
        <source>RNG before: {before}; after: {after}</source>
        <translation>随机数生成器状态 之前：{before}；之后：{after}</translation>
    </message>
    <message>
        <source>T={0} &lt;= 0: argmax id {1} (lowest id among equal maxima), no RNG draw</source>
        <translation>T={0} &lt;= 0：取 argmax id {1}（并列最大值中 id 最小者），不抽取随机数</translation>
    </message>
    <message>
        <source>T={0} &lt;= 0: greedy, id {1}</source>
        <translation>T={0} &lt;= 0：贪心，id {1}</translation>
    </message>
    <message>
        <source>T={0} &lt;= 0: id {1} keeps its logit, the other {2} get -inf (dist still draws)</source>
        <translation>T={0} &lt;= 0：id {1} 保留其 logit，其余 {2} 个置为 -inf（dist 仍会抽样）</translation>
    </message>
    <message>
        <source>mt19937 seed {0}, outputs consumed: {1}</source>
        <translation>mt19937 种子 {0}，已消耗 {1} 个输出</translation>
    </message>
    <message>
        <source>glibc srand({0}), rand() calls: {1}</source>
        <translation>glibc srand({0})，已调用 rand() {1} 次</translation>
    </message>
    <message>
        <source>T={0}: expf((v - max) / T) in float</source>
        <translation>T={0}：以 float 计算 expf((v - max) / T)</translation>
    </message>
    <message>
        <source>T={0}: expf((v - max) / T) in float, id order</source>
        <translation>T={0}：以 float 计算 expf((v - max) / T)，按 id 顺序</translation>
    </message>
    <message>
        <source>T={0}: expf((v - max) / T) in float, sorted by logit</source>
        <translation>T={0}：以 float 计算 expf((v - max) / T)，按 logit 排序</translation>
    </message>
    <message>
        <source>T={0}: logit / T (temperature last)</source>
        <translation>T={0}：logit / T（温度最后应用）</translation>
    </message>
    <message>
        <source>T={0}: scores / T ({1})</source>
        <translation>T={0}：scores / T（{1}）</translation>
    </message>
    <message>
        <source>T={0}: softmax in float over the whole vocabulary, id order</source>
        <translation>T={0}：以 float 对整个词表做 softmax，按 id 顺序</translation>
    </message>
    <message>
        <source>The board profile is incomplete: {reason}</source>
        <translation>板端配置不完整：{reason}</translation>
    </message>
    <message>
        <source>The board run failed: {reason}</source>
        <translation>板端运行失败：{reason}</translation>
    </message>
    <message>
        <source>The board runs {engine}: every one of {n} probes reproduced.</source>
        <translation>板端运行的是 {engine}：全部 {n} 个探针均已复现。</translation>
    </message>
    <message>
        <source>Your own order and per-stage rules; drawn with xorshift64* over the final probabilities.</source>
        <translation>自定义顺序与每个阶段的规则；按最终概率用 xorshift64* 抽样。</translation>
    </message>
    <message>
        <source>agreement: {list}</source>
        <translation>一致情况：{list}</translation>
    </message>
    <message>
        <source>an engine fallback</source>
        <translation>引擎的回退行为</translation>
    </message>
    <message>
        <source>antirez/ds4: T&lt;=0 argmax; top-k capped at 1024 (insertion sort, ties keep the lower id); float expf((v-max)/T); min-p relative to the top, then top-p on the running sum; xorshift64* whose state is the seed (the ds4 CLI: --seed S, S &gt;= 1; it samples with top_k = 0).</source>
        <translation>antirez/ds4：T&lt;=0 时取 argmax；top-k 上限 1024（插入排序，并列时保留较小的 id）；float 计算 expf((v-max)/T)；min-p 相对于最大概率，随后 top-p 按累计和截断；xorshift64* 的状态即种子（ds4 命令行：--seed S，S &gt;= 1；它以 top_k = 0 采样）。</translation>
    </message>
    <message>
        <source>bigram demo (not a model): next-token counts after {token} (id {id}) in your text of {n} tokens, {followers} followers, logits = log(count + {smoothing})</source>
        <translation>二元语法演示（不是模型）：在你的 {n} 个 token 的文本中，{token}（id {id}）之后的下一个 token 计数，共 {followers} 个后继，logits = log(count + {smoothing})</translation>
    </message>
    <message>
        <source>board file {what}: {size} bytes, sha256 {sha256}</source>
        <translation>板端文件 {what}：{size} 字节，sha256 {sha256}</translation>
    </message>
    <message>
        <source>board {board} s ({how}), host {host} s</source>
        <translation>板端 {board} 秒（{how}），主机端 {host} 秒</translation>
    </message>
    <message>
        <source>board: {machine}, compiler {compiler}{target}, char {sign}</source>
        <translation>板端：{machine}，编译器 {compiler}{target}，char 为{sign}</translation>
    </message>
    <message>
        <source>cannot read {path}: {reason}</source>
        <translation>无法读取 {path}：{reason}</translation>
    </message>
    <message>
        <source>cannot write {path}: {reason}</source>
        <translation>无法写入 {path}：{reason}</translation>
    </message>
    <message>
        <source>changed: {layers}</source>
        <translation>已变化：{layers}</translation>
    </message>
    <message>
        <source>connected to {board}</source>
        <translation>已连接到 {board}</translation>
    </message>
    <message>
        <source>connecting to {board}…</source>
        <translation>正在连接 {board}…</translation>
    </message>
    <message>
        <source>connection lost (it is reopened on the next run)</source>
        <translation>连接已断开（下次运行时重新连接）</translation>
    </message>
    <message>
        <source>custom: no engine's draw; the draws use xorshift64* over the final probabilities (double)</source>
        <translation>custom：不对应任何引擎的抽样；按最终概率用 xorshift64*（double）抽样</translation>
    </message>
    <message>
        <source>cut</source>
        <translation>已截断</translation>
    </message>
    <message>
        <source>cut by {stage}</source>
        <translation>被 {stage} 截断</translation>
    </message>
    <message>
        <source>different bytes</source>
        <translation>字节不同</translation>
    </message>
    <message>
        <source>divergences: {list}</source>
        <translation>分歧：{list}</translation>
    </message>
    <message>
        <source>ds4 skips non-finite logits (isfinite), as sample_top_p_min_p does</source>
        <translation>ds4 跳过非有限 logit（isfinite），与 sample_top_p_min_p 相同</translation>
    </message>
    <message>
        <source>ds4: kept sum {0} is not positive and finite: returns the best id, no RNG draw</source>
        <translation>ds4：保留部分之和 {0} 不是正有限数：返回最优 id，不抽取随机数</translation>
    </message>
    <message>
        <source>ds4: no finite logit: sample_argmax fallback, no RNG draw</source>
        <translation>ds4：没有有限 logit：回退到 sample_argmax，不抽取随机数</translation>
    </message>
    <message>
        <source>ds4: sum {0} is not positive and finite: returns ids[0], no RNG draw</source>
        <translation>ds4：和 {0} 不是正有限数：返回 ids[0]，不抽取随机数</translation>
    </message>
    <message>
        <source>ds4: sum {0} is not positive and finite: returns the best id, no RNG draw</source>
        <translation>ds4：和 {0} 不是正有限数：返回最优 id，不抽取随机数</translation>
    </message>
    <message>
        <source>ds4: the ds4 CLI (ds4_cli.c run_sampled_generation) always samples with top_k = 0; top_k &gt; 0 follows ds4_sample_logits callers that pass k</source>
        <translation>ds4：ds4 命令行（ds4_cli.c run_sampled_generation）总以 top_k = 0 采样；top_k &gt; 0 时按传入 k 的 ds4_sample_logits 调用方处理</translation>
    </message>
    <message>
        <source>ds4: top_p {0} outside (0, 1] is treated as 1 (off)</source>
        <translation>ds4：top_p {0} 不在 (0, 1] 内，按 1（关闭）处理</translation>
    </message>
    <message>
        <source>explained by:      {engine}</source>
        <translation>解释来源：        {engine}</translation>
    </message>
    <message>
        <source>explained by: {list}</source>
        <translation>解释来源：{list}</translation>
    </message>
    <message>
        <source>greedy (argmax)</source>
        <translation>贪心（argmax）</translation>
    </message>
    <message>
        <source>hf: draw not reproducible (torch.multinomial); the draws shown use xorshift64* over the final probabilities</source>
        <translation>hf：抽样不可复现（torch.multinomial）；显示的抽样按最终概率用 xorshift64* 得出</translation>
    </message>
    <message>
        <source>hf: generate(do_sample=True) raises ValueError for temperature &lt;= 0; shown as do_sample=False (argmax)</source>
        <translation>hf：temperature &lt;= 0 时 generate(do_sample=True) 抛出 ValueError；按 do_sample=False（argmax）显示</translation>
    </message>
    <message>
        <source>hf: the warpers raise ValueError for top_k &lt; 0, top_p &lt; 0 or min_p outside [0, 1]; shown with the rules applied as is</source>
        <translation>hf：top_k &lt; 0、top_p &lt; 0 或 min_p 不在 [0, 1] 内时各 warper 抛出 ValueError；此处按原样应用规则显示</translation>
    </message>
    <message>
        <source>holds</source>
        <translation>仍然成立</translation>
    </message>
    <message>
        <source>host file {what}: {size} bytes, sha256 {sha256}</source>
        <translation>主机端文件 {what}：{size} 字节，sha256 {sha256}</translation>
    </message>
    <message>
        <source>host key not known: refused</source>
        <translation>主机密钥未知：已拒绝</translation>
    </message>
    <message>
        <source>identical</source>
        <translation>一致</translation>
    </message>
    <message>
        <source>identify failed: {reason}</source>
        <translation>识别失败：{reason}</translation>
    </message>
    <message>
        <source>ids 0, 1, 3 set to 0 (mass {0} removed, not renormalized)</source>
        <translation>id 0、1、3 置为 0（移除概率质量 {0}，不重新归一化）</translation>
    </message>
    <message>
        <source>input:             {text}</source>
        <translation>输入：            {text}</translation>
    </message>
    <message>
        <source>k={0} (capped from {1} at the candidate count)</source>
        <translation>k={0}（由 {1} 截至候选数）</translation>
    </message>
    <message>
        <source>k={0} (capped from {1} at {2})</source>
        <translation>k={0}（由 {1} 截至 {2}）</translation>
    </message>
    <message>
        <source>k={0} (capped from {1}) ({2})</source>
        <translation>k={0}（由 {1} 截断）（{2}）</translation>
    </message>
    <message>
        <source>k={0} ({1})</source>
        <translation>k={0}（{1}）</translation>
    </message>
    <message>
        <source>k={0} &lt;= 0: full vocabulary ({1} finite)</source>
        <translation>k={0} &lt;= 0：整个词表（{1} 个有限值）</translation>
    </message>
    <message>
        <source>k={0} &lt;= 0: no-op ({1} candidates, id order)</source>
        <translation>k={0} &lt;= 0：不起作用（{1} 个候选，按 id 顺序）</translation>
    </message>
    <message>
        <source>k={0}, sorted by logit</source>
        <translation>k={0}，按 logit 排序</translation>
    </message>
    <message>
        <source>k={0}: no-op (k &lt;= 0 or k &gt;= vocabulary {1})</source>
        <translation>k={0}：不起作用（k &lt;= 0 或 k &gt;= 词表大小 {1}）</translation>
    </message>
    <message>
        <source>k={0}: off ({1})</source>
        <translation>k={0}：关闭（{1}）</translation>
    </message>
    <message>
        <source>k={0}: scores &lt; the k-th largest {1} removed, {2} kept (hf keeps ties)</source>
        <translation>k={0}：移除小于第 k 大值 {1} 的分数，保留 {2} 个（hf 保留并列项）</translation>
    </message>
    <message>
        <source>k={0}: {1} kept (insertion sort, ties keep the lower id)</source>
        <translation>k={0}：保留 {1} 个（插入排序，并列时保留较小的 id）</translation>
    </message>
    <message>
        <source>k={0}: {1} kept (min-heap on probabilities)</source>
        <translation>k={0}：保留 {1} 个（按概率建最小堆）</translation>
    </message>
    <message>
        <source>kestrel does not filter them (the float arithmetic runs on them as is)</source>
        <translation>kestrel 不过滤它们（float 运算照常作用于它们）</translation>
    </message>
    <message>
        <source>kestrel never calls srand (src/main.c main): a fresh engine process draws as after srand(1); seed S here means srand(S)</source>
        <translation>kestrel 从不调用 srand（src/main.c main）：新启动的引擎进程按 srand(1) 之后的序列抽样；此处种子 S 表示 srand(S)</translation>
    </message>
    <message>
        <source>kestrel-llm (RK3588): greedy when T&lt;=0 or top-p&lt;=0; ids 0, 1, 3 banned; top-p on probabilities not renormalized after top-k/min-p; glibc rand(), which kestrel never seeds (seed 1 = a fresh engine process; seed S = srand(S)).</source>
        <translation>kestrel-llm（RK3588）：T&lt;=0 或 top-p&lt;=0 时为贪心；屏蔽 id 0、1、3；top-p 作用于 top-k/min-p 之后未重新归一化的概率；使用 glibc rand()，kestrel 从不设置其种子（种子 1 = 新启动的引擎进程；种子 S = srand(S)）。</translation>
    </message>
    <message>
        <source>kestrel: no probability left (banned or cut): the sum is 0, so r = 0 &lt;= cumsum and the draw returns id 0</source>
        <translation>kestrel：没有剩余概率（被屏蔽或截断）：和为 0，于是 r = 0 &lt;= cumsum，抽样返回 id 0</translation>
    </message>
    <message>
        <source>kestrel: the final sum is NaN, so r is NaN, no r &lt;= cumsum holds and every draw is the engine's argmax fallback (best = 0; logits[i] &gt; logits[best]): id {0}{1}{2}; the engine does the same (vllm_transformer.c sample_token_pk)</source>
        <translation>kestrel：最终和为 NaN，于是 r 为 NaN，r &lt;= cumsum 均不成立，每次抽样都是引擎的 argmax 回退（best = 0；logits[i] &gt; logits[best]）：id {0}{1}{2}；引擎本身也是如此（vllm_transformer.c sample_token_pk）</translation>
    </message>
    <message>
        <source>kestrel: the softmax sum is NaN: every probability is NaN and the draw falls back to the argmax of the logits</source>
        <translation>kestrel：softmax 之和为 NaN：所有概率均为 NaN，抽样回退到 logits 的 argmax</translation>
    </message>
    <message>
        <source>llama.cpp default chain: top-k, top-p, min-p on the untempered logits, temperature last; dist draws with std::mt19937 (two outputs per draw, also at T&lt;=0).</source>
        <translation>llama.cpp 默认链：top-k、top-p、min-p 作用于未经温度缩放的 logits，温度最后应用；dist 用 std::mt19937 抽样（每次抽样取两个输出，T&lt;=0 时亦然）。</translation>
    </message>
    <message>
        <source>llama.cpp keeps them as they are (+inf makes expf(inf - inf) NaN downstream)</source>
        <translation>llama.cpp 原样保留它们（+inf 会使后续的 expf(inf - inf) 成为 NaN）</translation>
    </message>
    <message>
        <source>llama.cpp: NaN logits make its std::sort comparator inconsistent; here NaN sorts last (not bit-exact)</source>
        <translation>llama.cpp：NaN logit 使其 std::sort 比较器不一致；此处 NaN 排在最后（非逐位一致）</translation>
    </message>
    <message>
        <source>llama.cpp: T &lt;= 0 still consumes the RNG in dist (two mt19937 outputs per draw) unless one candidate is left</source>
        <translation>llama.cpp：T &lt;= 0 时 dist 仍消耗随机数（每次抽样两个 mt19937 输出），除非只剩一个候选</translation>
    </message>
    <message>
        <source>min_p={0} &lt;= 0: no-op</source>
        <translation>min_p={0} &lt;= 0：不起作用</translation>
    </message>
    <message>
        <source>min_p={0} &lt;= 0: off</source>
        <translation>min_p={0} &lt;= 0：关闭</translation>
    </message>
    <message>
        <source>min_p={0} of the top prob (threshold prob {1}): {2} kept</source>
        <translation>min_p={0} 乘以最大概率（阈值概率 {1}）：保留 {2} 个</translation>
    </message>
    <message>
        <source>min_p={0} of the top prob {1}: threshold {2}</source>
        <translation>min_p={0} 乘以最大概率 {1}：阈值 {2}</translation>
    </message>
    <message>
        <source>min_p={0} of the top prob: threshold prob {1}, {2} kept ({3})</source>
        <translation>min_p={0} 乘以最大概率：阈值概率 {1}，保留 {2} 个（{3}）</translation>
    </message>
    <message>
        <source>min_p={0} of the top prob: {1} kept</source>
        <translation>min_p={0} 乘以最大概率：保留 {1} 个</translation>
    </message>
    <message>
        <source>min_p={0}: logit &gt;= max + ln(min_p) = {1}, {2} kept</source>
        <translation>min_p={0}：logit &gt;= max + ln(min_p) = {1}，保留 {2} 个</translation>
    </message>
    <message>
        <source>min_p={0}: logit &gt;= max + ln(min_p) = {1}, {2} kept (llama.cpp)</source>
        <translation>min_p={0}：logit &gt;= max + ln(min_p) = {1}，保留 {2} 个（llama.cpp）</translation>
    </message>
    <message>
        <source>min_p={0}: off ({1})</source>
        <translation>min_p={0}：关闭（{1}）</translation>
    </message>
    <message>
        <source>no board ids</source>
        <translation>无板端 id</translation>
    </message>
    <message>
        <source>no candidates</source>
        <translation>没有候选</translation>
    </message>
    <message>
        <source>no emulation</source>
        <translation>无可复现的模拟</translation>
    </message>
    <message>
        <source>no emulation reproduces every id</source>
        <translation>没有哪种模拟能复现全部 id</translation>
    </message>
    <message>
        <source>no finite logit: argmax id {0}</source>
        <translation>没有有限 logit：argmax id {0}</translation>
    </message>
    <message>
        <source>no ids</source>
        <translation>无 id</translation>
    </message>
    <message>
        <source>normalization</source>
        <translation>规范化</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <source>p=1: off (draw walks the ids in id order)</source>
        <translation>p=1：关闭（抽样按 id 顺序遍历）</translation>
    </message>
    <message>
        <source>p={0} &gt;= 1: no-op</source>
        <translation>p={0} &gt;= 1：不起作用</translation>
    </message>
    <message>
        <source>p={0} &gt;= 1: off</source>
        <translation>p={0} &gt;= 1：关闭</translation>
    </message>
    <message>
        <source>p={0} &gt;= 1: off ({1})</source>
        <translation>p={0} &gt;= 1：关闭（{1}）</translation>
    </message>
    <message>
        <source>p={0} reached at rank {1} (cum {2}), threshold prob {3}</source>
        <translation>在第 {1} 名达到 p={0}（累计 {2}），阈值概率 {3}</translation>
    </message>
    <message>
        <source>p={0} reached at rank {1}, threshold prob {2} ({3})</source>
        <translation>在第 {1} 名达到 p={0}，阈值概率 {2}（{3}）</translation>
    </message>
    <message>
        <source>p={0}: ascending cumulative &lt;= {1} removed, {2} kept (hf)</source>
        <translation>p={0}：移除升序累计 &lt;= {1} 的部分，保留 {2} 个（hf）</translation>
    </message>
    <message>
        <source>p={0}: running sum {1} at rank {2}{3}</source>
        <translation>p={0}：第 {2} 名处累计和 {1}{3}</translation>
    </message>
    <message>
        <source>p={0}: {1} extracted, cum {2} (unrenormalized), last prob {3}{4}</source>
        <translation>p={0}：取出 {1} 个，累计 {2}（未重新归一化），最后一个概率 {3}{4}</translation>
    </message>
    <message>
        <source>p={0}: {1} kept, cum {2} of the unrenormalized probs (kestrel)</source>
        <translation>p={0}：保留 {1} 个，未重新归一化的概率累计 {2}（kestrel）</translation>
    </message>
    <message>
        <source>reconnecting…</source>
        <translation>正在重新连接…</translation>
    </message>
    <message>
        <source>rule {rule}</source>
        <translation>规则 {rule}</translation>
    </message>
    <message>
        <source>rules: {list}</source>
        <translation>规则：{list}</translation>
    </message>
    <message>
        <source>same bytes, split differently</source>
        <translation>字节相同，切分不同</translation>
    </message>
    <message>
        <source>sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>signed</source>
        <translation>有符号</translation>
    </message>
    <message>
        <source>special token split into pieces</source>
        <translation>特殊 token 被拆成多段</translation>
    </message>
    <message>
        <source>the Inspect tab's text</source>
        <translation>“检视”页的文本</translation>
    </message>
    <message>
        <source>the board prints:  {text}</source>
        <translation>板端打印：        {text}</translation>
    </message>
    <message>
        <source>the vocabulary size</source>
        <translation>词表大小</translation>
    </message>
    <message>
        <source>transformers: temperature, top-k, top-p, min-p, keeping at least one token; top-p ties follow torch.sort's ascending index order; the draw (torch.multinomial) is not reproducible.</source>
        <translation>transformers：temperature、top-k、top-p、min-p，至少保留一个 token；top-p 的并列项按 torch.sort 的升序下标排列；抽样（torch.multinomial）不可复现。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>unknown id</source>
        <translation>未知 id</translation>
    </message>
    <message>
        <source>unsigned</source>
        <translation>无符号</translation>
    </message>
    <message>
        <source>vocab.bin entries: host {host}, board {board}; {n} differ</source>
        <translation>vocab.bin 条目：主机端 {host}，板端 {board}；{n} 个不同</translation>
    </message>
    <message>
        <source>id {id}: host {host} / board {board}</source>
        <translation>id {id}：主机端 {host} / 板端 {board}</translation>
    </message>
    <message>
        <source>your order</source>
        <translation>你的顺序</translation>
    </message>
    <message>
        <source>{0} &lt;= 0: argmax id {1} (first maximum, banned ids not applied), no rand() call</source>
        <translation>{0} &lt;= 0：取 argmax id {1}（第一个最大值，不应用屏蔽的 id），不调用 rand()</translation>
    </message>
    <message>
        <source>{0} NaN, {1} +inf, {2} -inf (first at id {3}): {4}</source>
        <translation>{0} 个 NaN、{1} 个 +inf、{2} 个 -inf（首个在 id {3}）：{4}</translation>
    </message>
    <message>
        <source>{0} finite logits{1}</source>
        <translation>{0} 个有限 logit{1}</translation>
    </message>
    <message>
        <source>{host} offers a host key that is in no known_hosts file:

{key_type} {fingerprint}

Trust it only if it is the board's own key (on the board: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub). Trust and connect?</source>
        <translation>{host} 提供的主机密钥不在任何 known_hosts 文件中：

{key_type} {fingerprint}

仅当它确是板端自己的密钥时才信任（在板端执行：ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub）。信任并连接？</translation>
    </message>
    <message>
        <source>{label} (text: {source})</source>
        <translation>{label}（文本：{source}）</translation>
    </message>
    <message>
        <source>{name}: {verdict}  ·  {passed} of {n} samples pass</source>
        <translation>{name}：{verdict}  ·  {n} 个样本中 {passed} 个通过</translation>
    </message>
    <message>
        <source>{n} divergent</source>
        <translation>{n} 处分歧</translation>
    </message>
    <message>
        <source>{n} draws from one seeded RNG; first {first}. χ² = {chi2} on {dof} dof, p = {p}: NOT consistent with the final probabilities.  {rng}</source>
        <translation>由同一个已设种子的随机数生成器抽样 {n} 次；首次为 {first}。χ² = {chi2}，自由度 {dof}，p = {p}：与最终概率不一致。  {rng}</translation>
    </message>
    <message>
        <source>{n} draws from one seeded RNG; first {first}. χ² = {chi2} on {dof} dof, p = {p}: consistent with the final probabilities.  {rng}</source>
        <translation>由同一个已设种子的随机数生成器抽样 {n} 次；首次为 {first}。χ² = {chi2}，自由度 {dof}，p = {p}：与最终概率一致。  {rng}</translation>
    </message>
    <message>
        <source>{n} tokens</source>
        <translation>{n} 个 token</translation>
    </message>
    <message>
        <source>{n} without board ids</source>
        <translation>{n} 条没有板端 id</translation>
    </message>
    <message>
        <source>{path}: checking…</source>
        <translation>{path}：正在检查…</translation>
    </message>
    <message>
        <source>{probe}: board {board} | {engine} {host}</source>
        <translation>{probe}：板端 {board} | {engine} {host}</translation>
    </message>
    <message>
        <source>{reason} (the results so far are shown)</source>
        <translation>{reason}（显示目前为止的结果）</translation>
    </message>
    <message>
        <source>{same} of {n} texts identical</source>
        <translation>{n} 条文本中 {same} 条一致</translation>
    </message>
    <message>
        <source>✔ the board's tokenizer file is the host's</source>
        <translation>✔ 板端的分词器文件与主机端相同</translation>
    </message>
    <message>
        <source>✘ the board's tokenizer file differs from the host's</source>
        <translation>✘ 板端的分词器文件与主机端不同</translation>
    </message>
    <message>
        <source>✘ {token}: {host} on the host, {board} arrived whole on the board</source>
        <translation>✘ {token}：主机端 {host}，板端完整收到 {board}</translation>
    </message>
    <message>
        <source>{n} ids</source>
        <translation>{n} 个 id</translation>
    </message>
    <message>
        <source>; {k} of the first {n} hold other bytes (first: id {id})</source>
        <translation>；前 {n} 个中有 {k} 个字节不同（首个：id {id}）</translation>
    </message>
    <message>
        <source>; the first {n} hold the same bytes</source>
        <translation>；前 {n} 个字节相同</translation>
    </message>
    <message>
        <source>vocabulary</source>
        <translation>词表</translation>
    </message>
    <message>
        <source> and {n} more</source>
        <translation> 等另外 {n} 个</translation>
    </message>
    <message>
        <source>{n} special</source>
        <translation>{n} 个特殊 token</translation>
    </message>
    <message>
        <source>; only here: {list}</source>
        <translation>；仅此处有：{list}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source> (llama.cpp: model {model}, pre {pre})</source>
        <translation>（llama.cpp：模型 {model}，预分词 {pre}）</translation>
    </message>
    <message>
        <source>normalizer</source>
        <translation>规范化器</translation>
    </message>
    <message>
        <source>pre-tokenizer</source>
        <translation>预分词器</translation>
    </message>
    <message>
        <source>add_special_tokens adds</source>
        <translation>add_special_tokens 添加的内容</translation>
    </message>
    <message>
        <source>built-in ChatML</source>
        <translation>内置 ChatML</translation>
    </message>
    <message>
        <source>llama.cpp: llama-tokenize</source>
        <translation>llama.cpp：llama-tokenize</translation>
    </message>
    <message>
        <source>llama.cpp: llama-server</source>
        <translation>llama.cpp：llama-server</translation>
    </message>
    <message>
        <source>The board's llama-tokenize binary with the board tokenizer as its GGUF (-m); texts on stdin, several per process</source>
        <translation>板端的 llama-tokenize 程序，以板端分词器作为其 GGUF（-m）；文本经 stdin 传入，每个进程处理多条</translation>
    </message>
    <message>
        <source>A llama-server running on the board: POST /tokenize to its 127.0.0.1:PORT through the SSH connection (no port is opened)</source>
        <translation>板端运行的 llama-server：经 SSH 连接向其 127.0.0.1:PORT 发送 POST /tokenize（不开放任何端口）</translation>
    </message>
    <message>
        <source>/path/on/board/llama-tokenize</source>
        <translation>/板端/路径/llama-tokenize</translation>
    </message>
    <message>
        <source>llama-tokenize</source>
        <translation>llama-tokenize 程序</translation>
    </message>
    <message>
        <source>llama-server's port on the board's 127.0.0.1</source>
        <translation>llama-server 在板端 127.0.0.1 上的端口</translation>
    </message>
    <message>
        <source>llama-server port</source>
        <translation>llama-server 端口</translation>
    </message>
    <message>
        <source>the model's GGUF on the host (optional)</source>
        <translation>主机端上该模型的 GGUF（可选）</translation>
    </message>
    <message>
        <source>Beside a host tokenizer of another format (a tokenizer.json): the model's GGUF as llama.cpp reads it, so divergences that llama.cpp's recipe explains are tagged llamacpp-recipe</source>
        <translation>与其他格式的主机端分词器（tokenizer.json）并用：按 llama.cpp 的方式读取该模型的 GGUF，由 llama.cpp 配方解释的分歧会标记为 llamacpp-recipe</translation>
    </message>
    <message>
        <source>GGUF…</source>
        <translation>选择 GGUF…</translation>
    </message>
    <message>
        <source>Host GGUF</source>
        <translation>主机端 GGUF</translation>
    </message>
    <message>
        <source>Give the path of llama-tokenize on the board.</source>
        <translation>请填写 llama-tokenize 在板端的路径。</translation>
    </message>
    <message>
        <source>The host GGUF {path} is not a file.</source>
        <translation>主机端 GGUF {path} 不是文件。</translation>
    </message>
    <message>
        <source>The model's GGUF on the host</source>
        <translation>主机端上该模型的 GGUF</translation>
    </message>
    <message>
        <source>gone</source>
        <translation>已移除</translation>
    </message>
    <message>
        <source>blocker</source>
        <translation>阻断</translation>
    </message>
    <message>
        <source>special moved</source>
        <translation>特殊 token 移位</translation>
    </message>
    <message>
        <source>moved</source>
        <translation>移位</translation>
    </message>
    <message>
        <source>removed</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>appended</source>
        <translation>追加</translation>
    </message>
    <message>
        <source>append-only: every old id keeps its piece</source>
        <translation>仅追加：每个旧 id 都保留其片段</translation>
    </message>
    <message>
        <source>{n} blockers</source>
        <translation>{n} 处阻断</translation>
    </message>
    <message>
        <source>{old} ({old_size}) → {new} ({new_size}): {verdict}  ·  kept {kept}  ·  moved {moved}  ·  removed {removed}  ·  appended {appended}  ·  specials moved {specials}</source>
        <translation>{old}（{old_size}）→ {new}（{new_size}）：{verdict}  ·  保留 {kept}  ·  移位 {moved}  ·  删除 {removed}  ·  追加 {appended}  ·  特殊 token 移位 {specials}</translation>
    </message>
    <message>
        <source>diffing…</source>
        <translation>正在比对…</translation>
    </message>
    <message>
        <source>bytes per token</source>
        <translation>每个 token 的字节数</translation>
    </message>
    <message>
        <source>parity (log scale)</source>
        <translation>对等度（对数坐标）</translation>
    </message>
    <message>
        <source>the board skipped {0} space(s) at the end of the text</source>
        <translation>板端跳过了文本末尾的 {0} 个空格</translation>
    </message>
    <message>
        <source>the text ends at the NUL byte at offset {0}: {1} byte(s) after it never reached the board's tokenizer</source>
        <translation>文本在偏移 {0} 处的 NUL 字节结束：其后的 {1} 个字节从未到达板端分词器</translation>
    </message>
    <message>
        <source>the board skipped the space before {0}: special strings are matched first, without Ġ</source>
        <translation>板端跳过了 {0} 前的空格：特殊字符串优先匹配，不带 Ġ</translation>
    </message>
    <message>
        <source>the board skipped {0} space(s) at the start of the text</source>
        <translation>板端跳过了文本开头的 {0} 个空格</translation>
    </message>
    <message>
        <source>the board skipped the space: no entry longer than Ġ starts with Ġ{0}</source>
        <translation>板端跳过了空格：没有比 Ġ 更长且以 Ġ{0} 开头的词表条目</translation>
    </message>
    <message>
        <source>the board skipped the space before {0}: its Ġ match {1} runs into the next special token</source>
        <translation>板端跳过了 {0} 前的空格：它的 Ġ 匹配 {1} 会伸入下一个特殊 token</translation>
    </message>
    <message>
        <source>the Ġ match {0} would end past the special token {1} byte(s) ahead, so it was refused</source>
        <translation>Ġ 匹配 {0} 会越过前方 {1} 个字节处的特殊 token，因此被拒绝</translation>
    </message>
    <message>
        <source>{0} spaces before {1} became one Ġ in {2}</source>
        <translation>{1} 前的 {0} 个空格在 {2} 中变成了一个 Ġ</translation>
    </message>
    <message>
        <source>{0} (0x{1}) has no entry as a raw byte (vocab.bin stores it as a marker): the board wrote id 0 {2}</source>
        <translation>{0}（0x{1}）作为原始字节没有词表条目（vocab.bin 把它存为标记）：板端写出了 ID 0 {2}</translation>
    </message>
    <message>
        <source>{0} newlines in a row: the board took one Ċ per newline, {1} for {2}</source>
        <translation>连续 {0} 个换行：板端每个换行取一个 Ċ，用 {1} 表示 {2} 个</translation>
    </message>
    <message>
        <source>{0} newlines in a row: the board took the longest Ċ run of at most 8, {1} for {2}</source>
        <translation>连续 {0} 个换行：板端取最多 8 个的最长 Ċ 串，用 {1} 表示 {2} 个</translation>
    </message>
    <message>
        <source>the newline matched nothing as a raw byte: the board fell back to {0}</source>
        <translation>换行作为原始字节没有匹配到任何条目：板端回退到 {0}</translation>
    </message>
    <message>
        <source>{0} was matched first, as a whole</source>
        <translation>{0} 被优先整体匹配</translation>
    </message>
    <message>
        <source>the board stopped {0} after {1} byte(s): the longest entry ({2} bytes) would run into the special token ahead</source>
        <translation>板端在 {1} 个字节后截断了 {0}：最长条目（{2} 字节）会伸入前方的特殊 token</translation>
    </message>
    <message>
        <source>ids {0} and {1} are both stored as {2}: the board took {3} {4}, the host has {5} {6}</source>
        <translation>ID {0} 和 {1} 在词表中存储为相同的 {2}：板端取了 {3} {4}，主机端是 {5} {6}</translation>
    </message>
    <message>
        <source>id {0} is not in the host's vocabulary</source>
        <translation>ID {0} 不在主机端词表中</translation>
    </message>
    <message>
        <source>the host's normalizer changed these bytes; the board reads them raw</source>
        <translation>主机端的规范化器改变了这些字节；板端按原样读取</translation>
    </message>
    <message>
        <source>{0} is not among the 15 special strings the engine matches first: it was read as text</source>
        <translation>{0} 不在引擎优先匹配的 15 个特殊字符串之中：它被当作普通文本读取</translation>
    </message>
    <message>
        <source>{0} was read as plain text and split</source>
        <translation>{0} 被当作普通文本读取并拆分</translation>
    </message>
    <message>
        <source>the board took the longest entry at each position ({0}); the host's merges split it otherwise</source>
        <translation>板端在每个位置取最长条目（{0}）；主机端的合并规则给出了不同的切分</translation>
    </message>
    <message>
        <source>llama.cpp reads {0} as model {1}, pre {2} and splits this as {3}; the host's tokenizer as {4}</source>
        <translation>llama.cpp 把 {0} 读作模型 {1}、预分词 {2}，切分为 {3}；主机端分词器切分为 {4}</translation>
    </message>
    <message>
        <source>key {path} ({fingerprint}) refused</source>
        <translation>密钥 {path}（{fingerprint}）被拒绝</translation>
    </message>
    <message>
        <source>agent key {fingerprint} refused</source>
        <translation>ssh-agent 密钥 {fingerprint} 被拒绝</translation>
    </message>
    <message>
        <source>password refused</source>
        <translation>密码被拒绝</translation>
    </message>
    <message>
        <source>keyboard-interactive refused</source>
        <translation>keyboard-interactive 认证被拒绝</translation>
    </message>
    <message>
        <source>ssh-agent: no keys</source>
        <translation>ssh-agent：没有密钥</translation>
    </message>
    <message>
        <source>password: none given</source>
        <translation>密码：未提供</translation>
    </message>
    <message>
        <source>no usable method (no key file, no agent key, no password)</source>
        <translation>没有可用的方法（没有密钥文件、没有 ssh-agent 密钥、没有密码）</translation>
    </message>
    <message>
        <source>Error reading SSH protocol banner</source>
        <translation>读取 SSH 协议标识失败</translation>
    </message>
    <message>
        <source>{reason}: line {line} column {column} (char {at})</source>
        <translation>{reason}：第 {line} 行第 {column} 列（第 {at} 个字符）</translation>
    </message>
    <message>
        <source>Expecting value</source>
        <translation>此处应为一个值</translation>
    </message>
    <message>
        <source>Extra data</source>
        <translation>多余的数据</translation>
    </message>
    <message>
        <source>Expecting ',' delimiter</source>
        <translation>此处应为分隔符 ','</translation>
    </message>
    <message>
        <source>Expecting ':' delimiter</source>
        <translation>此处应为分隔符 ':'</translation>
    </message>
    <message>
        <source>Expecting property name enclosed in double quotes</source>
        <translation>此处应为双引号括起的键名</translation>
    </message>
    <message>
        <source>Unterminated string starting at</source>
        <translation>字符串未结束，起始于</translation>
    </message>
    <message>
        <source>Invalid control character at</source>
        <translation>无效的控制字符，位于</translation>
    </message>
    <message>
        <source>id {0} is not in the vocabulary ({1} side)</source>
        <translation>id {0} 不在词表中（{1}一侧）</translation>
    </message>
    <message>
        <source>{0} (id {1}) is one special token on the {2} side only</source>
        <translation>{0}（id {1}）只在{2}一侧是一个特殊 token</translation>
    </message>
    <message>
        <source>equal after {0}</source>
        <translation>经 {0} 归一化后相同</translation>
    </message>
    <message>
        <source>host {0} vs board {1}: {2}</source>
        <translation>主机 {0}，板端 {1}：{2}</translation>
    </message>
    <message>
        <source>host: {0}; board: {1}</source>
        <translation>主机：{0}；板端：{1}</translation>
    </message>
    <message>
        <source>neither side is an encoding of the span alone: the split depends on its context (pre-tokenization)</source>
        <translation>两侧都不是这段文本单独编码的结果：切分取决于上下文（预分词）</translation>
    </message>
    <message>
        <source>vocab.bin stores id {0} (bytes {1}) as {2}, the UTF-8 of {3} (id {4}): the board read the marker, not the letter</source>
        <translation>vocab.bin 把 id {0}（字节 {1}）存为 {2}，即 {3}（id {4}）的 UTF-8：板端读到的是标记，而不是那个字母</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>no encoder of the span alone</source>
        <translation>没有编码器单独给出此切分</translation>
    </message>
    <message>
        <source>nothing on one side</source>
        <translation>一侧为空</translation>
    </message>
    <message>
        <source>bpe (merge ranks)</source>
        <translation>bpe（合并优先级）</translation>
    </message>
    <message>
        <source>rank (lowest id first)</source>
        <translation>rank（最小 id 优先）</translation>
    </message>
    <message>
        <source>greedy (longest match)</source>
        <translation>greedy（最长匹配）</translation>
    </message>
    <message>
        <source>markers (bytes 00-20)</source>
        <translation>标记（字节 00-20）</translation>
    </message>
    <message>
        <source>7F</source>
        <translation>7F</translation>
    </message>
    <message>
        <source>multi-byte UTF-8</source>
        <translation>多字节 UTF-8</translation>
    </message>
    <message>
        <source>raw 80-A0</source>
        <translation>原始字节 80-A0</translation>
    </message>
    <message>
        <source>raw AD</source>
        <translation>原始字节 AD</translation>
    </message>
    <message>
        <source>raw A1-FF</source>
        <translation>原始字节 A1-FF</translation>
    </message>
    <message>
        <source>ASCII</source>
        <translation>ASCII</translation>
    </message>
    <message>
        <source> = </source>
        <translation> = </translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>a board profile needs a name and a host: {profile}</source>
        <translation>板端配置需要名称和主机：{profile}</translation>
    </message>
    <message>
        <source>a board profile needs a name</source>
        <translation>板端配置需要名称</translation>
    </message>
    <message>
        <source>profile {name}: no host</source>
        <translation>配置 {name}：没有主机</translation>
    </message>
    <message>
        <source>profile {name}: port {port} is not 1..65535</source>
        <translation>配置 {name}：端口 {port} 不在 1..65535 之内</translation>
    </message>
    <message>
        <source>profile {name}: no compiler command</source>
        <translation>配置 {name}：没有编译器命令</translation>
    </message>
    <message>
        <source>profile {name}: {setting} {value} is not a number of seconds</source>
        <translation>配置 {name}：{setting} {value} 不是秒数</translation>
    </message>
    <message>
        <source>cannot read board profiles {path}: {reason}</source>
        <translation>无法读取板端配置 {path}：{reason}</translation>
    </message>
    <message>
        <source>{path} is not a board profile file: {reason}</source>
        <translation>{path} 不是板端配置文件：{reason}</translation>
    </message>
    <message>
        <source>cannot reach {where}: no answer within {seconds} s</source>
        <translation>无法连接 {where}：{seconds} 秒内无应答</translation>
    </message>
    <message>
        <source>cannot reach {where}: {reason}</source>
        <translation>无法连接 {where}：{reason}</translation>
    </message>
    <message>
        <source>no SSH server answered at {where} within {seconds} s (handshake: {reason})</source>
        <translation>{where} 在 {seconds} 秒内没有 SSH 服务器应答（握手：{reason}）</translation>
    </message>
    <message>
        <source>key file {path} does not exist</source>
        <translation>密钥文件 {path} 不存在</translation>
    </message>
    <message>
        <source>cannot read key file {path}: {reason}</source>
        <translation>无法读取密钥文件 {path}：{reason}</translation>
    </message>
    <message>
        <source>key file {path} is encrypted and no passphrase was given</source>
        <translation>密钥文件 {path} 已加密，但未提供口令</translation>
    </message>
    <message>
        <source>cannot decrypt key file {path} (wrong passphrase?): {reason}</source>
        <translation>无法解密密钥文件 {path}（口令错误？）：{reason}</translation>
    </message>
    <message>
        <source>the host key of {host} is not known: {kind} {fingerprint}. Accept it only if it is the board's own key (on the board: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub)</source>
        <translation>{host} 的主机密钥未知：{kind} {fingerprint}。只有确认它是板端自己的密钥时才接受它（在板端运行：ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub）</translation>
    </message>
    <message>
        <source>WARNING: the host key of {host} {what}: the server offers {kind} {fingerprint}, on record: {known}. Someone may be intercepting the connection, or the board was reinstalled; connection refused. Remove the old entry only if you know why</source>
        <translation>警告：{host} 的主机密钥{what}：服务器提供的是 {kind} {fingerprint}，记录中为：{known}。可能有人在拦截连接，或者板端系统已重装；已拒绝连接。只有清楚原因时才删除旧记录</translation>
    </message>
    <message>
        <source>{label}: connection closed during authentication: {reason}</source>
        <translation>{label}：认证过程中连接被关闭：{reason}</translation>
    </message>
    <message>
        <source>{label}: connection closed during authentication ({what}): {reason}</source>
        <translation>{label}：认证过程中（{what}）连接被关闭：{reason}</translation>
    </message>
    <message>
        <source>{label} refused authentication: {tried} (server accepts: {methods})</source>
        <translation>{label} 拒绝了认证：{tried}（服务器接受：{methods}）</translation>
    </message>
    <message>
        <source>not connected to {label}</source>
        <translation>未连接到 {label}</translation>
    </message>
    <message>
        <source>the connection to {label} was lost; reconnect</source>
        <translation>与 {label} 的连接已断开；请重新连接</translation>
    </message>
    <message>
        <source>the connection to {label} failed to start a command: {reason}</source>
        <translation>与 {label} 的连接无法启动命令：{reason}</translation>
    </message>
    <message>
        <source>cancelled: {command}</source>
        <translation>已取消：{command}</translation>
    </message>
    <message>
        <source>the board command sent nothing for {seconds} s and was stopped: {command}</source>
        <translation>板端命令 {seconds} 秒内没有任何输出，已被停止：{command}</translation>
    </message>
    <message>
        <source>the board command did not finish within {seconds} s and was stopped: {command}</source>
        <translation>板端命令未在 {seconds} 秒内结束，已被停止：{command}</translation>
    </message>
    <message>
        <source>the board command closed its output but did not exit within {seconds} s: {command}</source>
        <translation>板端命令关闭了输出，但未在 {seconds} 秒内退出：{command}</translation>
    </message>
    <message>
        <source>the connection to {label} was lost while running: {command}</source>
        <translation>运行命令时与 {label} 的连接断开：{command}</translation>
    </message>
    <message>
        <source>command exited with status {rc}: {command}</source>
        <translation>命令以状态 {rc} 退出：{command}</translation>
    </message>
    <message>
        <source>{path} does not exist on the board</source>
        <translation>板端上不存在 {path}</translation>
    </message>
    <message>
        <source>{path} does not exist on {host}</source>
        <translation>{host} 上不存在 {path}</translation>
    </message>
    <message>
        <source>port {port} is not a TCP port (1-65535)</source>
        <translation>端口 {port} 不是 TCP 端口（1-65535）</translation>
    </message>
    <message>
        <source>{label}: cannot reach 127.0.0.1:{port} on the board ({reason}; is the service running, is TCP forwarding allowed?)</source>
        <translation>{label}：无法连接板端的 127.0.0.1:{port}（{reason}；服务是否在运行，是否允许 TCP 转发？）</translation>
    </message>
    <message>
        <source>the connection to {label} failed to open a channel: {reason}</source>
        <translation>与 {label} 的连接无法打开通道：{reason}</translation>
    </message>
    <message>
        <source>{label}: cannot start SFTP: {reason}</source>
        <translation>{label}：无法启动 SFTP：{reason}</translation>
    </message>
    <message>
        <source>{label}: cannot start SFTP</source>
        <translation>{label}：无法启动 SFTP</translation>
    </message>
    <message>
        <source>the connection to {label} was lost during SFTP {op} {path}</source>
        <translation>SFTP {op} {path} 期间与 {label} 的连接断开</translation>
    </message>
    <message>
        <source>SFTP {op} {path} on {label} failed: {reason}</source>
        <translation>在 {label} 上 SFTP {op} {path} 失败：{reason}</translation>
    </message>
    <message>
        <source>{path} exists on {label} and is not a directory</source>
        <translation>{label} 上的 {path} 已存在，且不是目录</translation>
    </message>
    <message>
        <source>{path} on {label} has {size} bytes, more than the {limit} allowed</source>
        <translation>{label} 上的 {path} 有 {size} 字节，超过允许的 {limit} 字节</translation>
    </message>
    <message>
        <source>cannot compute the sha256 of {path} on {label}: {notes}</source>
        <translation>无法计算 {label} 上 {path} 的 sha256：{notes}</translation>
    </message>
    <message>
        <source>output line {line} is not {what}: {shown} ({reason})</source>
        <translation>输出第 {line} 行不是 {what}：{shown}（{reason}）</translation>
    </message>
    <message>
        <source>output line {line} is not {what}: {shown}</source>
        <translation>输出第 {line} 行不是 {what}：{shown}</translation>
    </message>
    <message>
        <source>ids inside the group of {pattern}</source>
        <translation>{pattern} 分组中的 id</translation>
    </message>
    <message>
        <source>{word} is not one</source>
        <translation>{word} 不是整数</translation>
    </message>
    <message>
        <source>keys: {keys}</source>
        <translation>键：{keys}</translation>
    </message>
    <message>
        <source>group {group} holds a non-integer</source>
        <translation>分组 {group} 含有非整数</translation>
    </message>
    <message>
        <source>{n} lines</source>
        <translation>{n} 行</translation>
    </message>
    <message>
        <source>the board's tokenizer refused the text: {error}</source>
        <translation>板端分词器拒绝了该文本：{error}</translation>
    </message>
    <message>
        <source>the command printed more results than the {n} texts sent (line {line}: {text})</source>
        <translation>命令输出的结果多于发送的 {n} 条文本（第 {line} 行：{text}）</translation>
    </message>
    <message>
        <source>{reason} [{done} of {sent} results received before this]</source>
        <translation>{reason} [此前已收到 {sent} 条结果中的 {done} 条]</translation>
    </message>
    <message>
        <source>the command printed {done} results for {sent} texts: {command}</source>
        <translation>命令为 {sent} 条文本只输出了 {done} 条结果：{command}</translation>
    </message>
    <message>
        <source>the board's tokenizer file: {reason}</source>
        <translation>板端分词器文件：{reason}</translation>
    </message>
    <message>
        <source>uname failed: {output}</source>
        <translation>uname 失败：{output}</translation>
    </message>
    <message>
        <source>{compiler} --version failed (exit {rc}): {output}</source>
        <translation>{compiler} --version 失败（退出码 {rc}）：{output}</translation>
    </message>
    <message>
        <source>cannot tell char signedness: {compiler} -dM -E failed: {output}</source>
        <translation>无法判断 char 是否有符号：{compiler} -dM -E 失败：{output}</translation>
    </message>
    <message>
        <source>{n} lines of the form [1, 2, 3] in {chars} characters</source>
        <translation>{chars} 个字符中有 {n} 行形如 [1, 2, 3]</translation>
    </message>
    <message>
        <source>{reason}; stderr: {stderr}</source>
        <translation>{reason}；标准错误输出：{stderr}</translation>
    </message>
    <message>
        <source>cancelled after {done} of {n} texts</source>
        <translation>在 {n} 条文本中完成 {done} 条后已取消</translation>
    </message>
    <message>
        <source>bad chunk size {size}</source>
        <translation>分块大小 {size} 有误</translation>
    </message>
    <message>
        <source>a chunk of {size} bytes runs past the end of the answer</source>
        <translation>一个 {size} 字节的分块超出了应答的末尾</translation>
    </message>
    <message>
        <source>no HTTP header in the answer ({size} bytes: {head})</source>
        <translation>应答中没有 HTTP 头（{size} 字节：{head}）</translation>
    </message>
    <message>
        <source>not an HTTP status line: {line}</source>
        <translation>不是 HTTP 状态行：{line}</translation>
    </message>
    <message>
        <source>bad Content-Length {value}</source>
        <translation>Content-Length {value} 有误</translation>
    </message>
    <message>
        <source>the answer ended after {got} of {length} body bytes</source>
        <translation>应答在正文 {length} 字节中的第 {got} 字节后结束</translation>
    </message>
    <message>
        <source>HTTP {status}: the body is not JSON ({reason}): {body}</source>
        <translation>HTTP {status}：正文不是 JSON（{reason}）：{body}</translation>
    </message>
    <message>
        <source>a token of the answer is not an id: {token}</source>
        <translation>应答中的一个 token 不是 id：{token}</translation>
    </message>
    <message>
        <source>the answer is above {limit} bytes</source>
        <translation>应答超过 {limit} 字节</translation>
    </message>
    <message>
        <source>127.0.0.1:{port} on the board did not answer within {seconds} s</source>
        <translation>板端的 127.0.0.1:{port} 在 {seconds} 秒内没有应答</translation>
    </message>
    <message>
        <source>the channel to 127.0.0.1:{port} broke: {reason}</source>
        <translation>到 127.0.0.1:{port} 的通道中断：{reason}</translation>
    </message>
    <message>
        <source>the engine's C sources are not installed ({path} is missing): reinstall tokinspect</source>
        <translation>引擎的 C 源码未安装（缺少 {path}）：请重新安装 tokinspect</translation>
    </message>
    <message>
        <source>cannot parse the command {command}: {reason}</source>
        <translation>无法解析命令 {command}：{reason}</translation>
    </message>
    <message>
        <source>the board has no C compiler {name} (profile setting 'compiler' is {compiler}; PATH on the board: {path})</source>
        <translation>板端没有 C 编译器 {name}（配置项 'compiler' 为 {compiler}；板端的 PATH：{path}）</translation>
    </message>
    <message>
        <source>the board could not run the compiler {compiler}: {output}</source>
        <translation>板端无法运行编译器 {compiler}：{output}</translation>
    </message>
    <message>
        <source>the build on {label} failed (exit {rc})</source>
        <translation>在 {label} 上构建失败（退出码 {rc}）</translation>
    </message>
    <message>
        <source>tokcore was built but does not run on {label} (run prefix {prefix})</source>
        <translation>tokcore 已构建，但无法在 {label} 上运行（运行前缀 {prefix}）</translation>
    </message>
    <message>
        <source>program name {name}: use letters, digits, - and _</source>
        <translation>程序名 {name}：只能使用字母、数字、- 和 _</translation>
    </message>
    <message>
        <source>the board's file is {size} bytes: not fetched for the entry comparison</source>
        <translation>板端文件有 {size} 字节：未取回做条目比较</translation>
    </message>
    <message>
        <source>the board's vocab.bin does not load: {reason}</source>
        <translation>板端的 vocab.bin 无法加载：{reason}</translation>
    </message>
    <message>
        <source>the host tokenizer {name} has no file to compare with {path}</source>
        <translation>主机分词器 {name} 没有可与 {path} 比较的文件</translation>
    </message>
    <message>
        <source>{name} compiled as vocab.bin</source>
        <translation>{name} 编译成的 vocab.bin</translation>
    </message>
    <message>
        <source>(no output)</source>
        <translation>（无输出）</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>被拒绝</translation>
    </message>
    <message>
        <source>is REVOKED</source>
        <translation>已被吊销</translation>
    </message>
    <message>
        <source>has CHANGED</source>
        <translation>已改变</translation>
    </message>
    <message>
        <source>no ids from the board</source>
        <translation>板端没有返回 id</translation>
    </message>
    <message>
        <source>integers separated by spaces or commas</source>
        <translation>以空格或逗号分隔的整数</translation>
    </message>
    <message>
        <source>a JSON list of ids</source>
        <translation>id 的 JSON 列表</translation>
    </message>
    <message>
        <source>expected [int, ...]</source>
        <translation>应为 [int, ...]</translation>
    </message>
    <message>
        <source>a JSON line</source>
        <translation>JSON 行</translation>
    </message>
    <message>
        <source>a JSON line with "ids"</source>
        <translation>带 "ids" 的 JSON 行</translation>
    </message>
    <message>
        <source>exactly one JSON line</source>
        <translation>恰好一行 JSON</translation>
    </message>
    <message>
        <source>llama-tokenize --ids output</source>
        <translation>llama-tokenize --ids 的输出</translation>
    </message>
    <message>
        <source>Connection refused</source>
        <translation>连接被拒绝</translation>
    </message>
    <message>
        <source>Connection reset by peer</source>
        <translation>连接被对方重置</translation>
    </message>
    <message>
        <source>Connection timed out</source>
        <translation>连接超时</translation>
    </message>
    <message>
        <source>Network is unreachable</source>
        <translation>网络不可达</translation>
    </message>
    <message>
        <source>No route to host</source>
        <translation>没有到主机的路由</translation>
    </message>
    <message>
        <source>Name or service not known</source>
        <translation>未知的主机名或服务</translation>
    </message>
    <message>
        <source>Temporary failure in name resolution</source>
        <translation>域名解析暂时失败</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>无</translation>
    </message>
    <message>
        <source>tab</source>
        <translation>制表符</translation>
    </message>
    <message>
        <source>CR</source>
        <translation>回车符</translation>
    </message>
    <message>
        <source>vertical tab</source>
        <translation>垂直制表符</translation>
    </message>
    <message>
        <source>form feed</source>
        <translation>换页符</translation>
    </message>
    <message>
        <source>escape</source>
        <translation>转义符</translation>
    </message>
    <message>
        <source>byte</source>
        <translation>字节</translation>
    </message>
</context>
</TS>
